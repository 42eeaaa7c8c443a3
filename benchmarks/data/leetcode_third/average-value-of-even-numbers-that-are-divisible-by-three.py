from typing import *


class Solution:
    def averageValue(self, nums: List[int]) -> int:
        vals = [x for x in nums if x % 6 == 0]
        return sum(vals) // len(vals) if vals else 0
