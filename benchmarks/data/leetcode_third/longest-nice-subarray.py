from typing import *


class Solution:
    def longestNiceSubarray(self, nums: List[int]) -> int:
        mask = 0
        left = 0
        best = 0
        for right, x in enumerate(nums):
            while mask & x:
                mask ^= nums[left]
                left += 1
            mask |= x
            best = max(best, right - left + 1)
        return best
