from typing import *


class Solution:
    def canBeIncreasing(self, nums: List[int]) -> bool:
        def inc(arr):
            return all(arr[i] < arr[i + 1] for i in range(len(arr) - 1))

        for i in range(1, len(nums)):
            if nums[i] <= nums[i - 1]:
                return inc(nums[:i - 1] + nums[i:]) or inc(nums[:i] + nums[i + 1:])
        return True
