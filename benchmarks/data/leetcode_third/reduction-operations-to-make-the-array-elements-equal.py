from typing import *


class Solution:
    def reductionOperations(self, nums: List[int]) -> int:
        a = sorted(nums)
        res = 0
        level = 0
        for i in range(1, len(a)):
            if a[i] != a[i - 1]:
                level += 1
            res += level
        return res
