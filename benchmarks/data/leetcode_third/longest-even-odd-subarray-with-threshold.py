from typing import *


class Solution:
    def longestAlternatingSubarray(self, nums: List[int], threshold: int) -> int:
        best = 0
        cur = 0
        for i, x in enumerate(nums):
            if x > threshold:
                cur = 0
            elif cur > 0 and x % 2 != nums[i - 1] % 2:
                cur += 1
            elif x % 2 == 0:
                cur = 1
            else:
                cur = 0
            best = max(best, cur)
        return best
