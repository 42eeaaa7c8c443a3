from typing import *
from math import gcd


class Solution:
    def minimumSplits(self, nums: List[int]) -> int:
        count = 1
        g = 0
        for v in nums:
            ng = gcd(g, v)
            if ng == 1:
                count += 1
                g = v
            else:
                g = ng
        return count
