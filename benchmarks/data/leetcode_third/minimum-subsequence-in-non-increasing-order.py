from typing import *


class Solution:
    def minSubsequence(self, nums: List[int]) -> List[int]:
        total = sum(nums)
        res = []
        acc = 0
        for v in sorted(nums, reverse=True):
            res.append(v)
            acc += v
            if acc * 2 > total:
                break
        return res
