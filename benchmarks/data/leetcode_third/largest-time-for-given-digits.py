from typing import *
from itertools import permutations


class Solution:
    def largestTimeFromDigits(self, arr: List[int]) -> str:
        best = -1
        for a, b, c, d in permutations(arr):
            h = a * 10 + b
            mm = c * 10 + d
            if h < 24 and mm < 60:
                best = max(best, h * 60 + mm)
        if best < 0:
            return ""
        return "%02d:%02d" % divmod(best, 60)
