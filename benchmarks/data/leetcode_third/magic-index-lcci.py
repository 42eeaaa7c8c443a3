from typing import *


class Solution:
    def findMagicIndex(self, nums: List[int]) -> int:
        for i, v in enumerate(nums):
            if v == i:
                return i
        return -1
