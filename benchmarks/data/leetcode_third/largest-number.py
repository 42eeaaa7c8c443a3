from typing import *
from functools import cmp_to_key


class Solution:
    def largestNumber(self, nums: List[int]) -> str:
        strs = [str(v) for v in nums]

        def cmp(a, b):
            if a + b > b + a:
                return -1
            if a + b < b + a:
                return 1
            return 0

        strs.sort(key=cmp_to_key(cmp))
        out = ''.join(strs)
        return '0' if out[0] == '0' else out
