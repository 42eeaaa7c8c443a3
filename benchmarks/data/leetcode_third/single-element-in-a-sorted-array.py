from typing import *


class Solution:
    def singleNonDuplicate(self, nums: List[int]) -> int:
        lo, hi = 0, len(nums) - 1
        while lo < hi:
            m = (lo + hi) // 2
            if m % 2:
                m -= 1
            if nums[m] == nums[m + 1]:
                lo = m + 2
            else:
                hi = m
        return nums[lo]
