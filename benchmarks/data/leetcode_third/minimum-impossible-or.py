from typing import *


class Solution:
    def minImpossibleOR(self, nums: List[int]) -> int:
        present = set(nums)
        p = 1
        while p in present:
            p <<= 1
        return p
