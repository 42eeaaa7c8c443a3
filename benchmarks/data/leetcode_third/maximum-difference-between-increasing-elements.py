from typing import *


class Solution:
    def maximumDifference(self, nums: List[int]) -> int:
        best = -1
        lo = nums[0]
        for x in nums[1:]:
            if x > lo:
                if x - lo > best:
                    best = x - lo
            else:
                lo = x
        return best
