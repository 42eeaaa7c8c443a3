from typing import *


class Solution:
    def longestSubarray(self, nums: List[int]) -> int:
        best = 0
        left = 0
        zeros = 0
        for r, x in enumerate(nums):
            if x == 0:
                zeros += 1
            while zeros > 1:
                if nums[left] == 0:
                    zeros -= 1
                left += 1
            if r - left > best:
                best = r - left
        return best
