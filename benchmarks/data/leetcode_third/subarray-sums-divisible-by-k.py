from typing import *
from collections import defaultdict


class Solution:
    def subarraysDivByK(self, nums: List[int], k: int) -> int:
        cnt = defaultdict(int)
        cnt[0] = 1
        s = 0
        total = 0
        for x in nums:
            s = (s + x) % k
            total += cnt[s]
            cnt[s] += 1
        return total
