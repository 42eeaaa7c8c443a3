from typing import *


class Solution:
    def longestSubarray(self, nums: List[int]) -> int:
        mx = max(nums)
        best = run = 0
        for x in nums:
            if x == mx:
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
        return best
