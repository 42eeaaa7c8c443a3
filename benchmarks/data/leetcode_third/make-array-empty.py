from typing import *


class Solution:
    def countOperationsToEmptyArray(self, nums: List[int]) -> int:
        n = len(nums)
        order = sorted(range(n), key=lambda i: nums[i])
        ops = n
        for i in range(1, n):
            if order[i] < order[i - 1]:
                ops += n - i
        return ops
