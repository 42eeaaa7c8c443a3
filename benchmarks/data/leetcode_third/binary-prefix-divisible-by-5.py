from typing import *


class Solution:
    def prefixesDivBy5(self, nums: List[int]) -> List[bool]:
        res = []
        v = 0
        for b in nums:
            v = (v * 2 + b) % 5
            res.append(v == 0)
        return res
