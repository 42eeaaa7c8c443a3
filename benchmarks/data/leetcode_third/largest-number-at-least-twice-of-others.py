from typing import *


class Solution:
    def dominantIndex(self, nums: List[int]) -> int:
        idx = max(range(len(nums)), key=lambda i: nums[i])
        for i, x in enumerate(nums):
            if i != idx and 2 * x > nums[idx]:
                return -1
        return idx
