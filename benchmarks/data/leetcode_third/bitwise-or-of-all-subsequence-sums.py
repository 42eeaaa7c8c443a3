from typing import *


class Solution:
    def subsequenceSumOr(self, nums: List[int]) -> int:
        cnt = [0] * 70
        for x in nums:
            b = 0
            while x:
                if x & 1:
                    cnt[b] += 1
                x >>= 1
                b += 1
        res = 0
        for b in range(69):
            if cnt[b]:
                res |= 1 << b
            cnt[b + 1] += cnt[b] // 2
        return res
