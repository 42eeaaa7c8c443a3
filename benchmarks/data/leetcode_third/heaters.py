from typing import *
import bisect


class Solution:
    def findRadius(self, houses: List[int], heaters: List[int]) -> int:
        hs = sorted(heaters)
        best = 0
        for h in houses:
            i = bisect.bisect_left(hs, h)
            d = float('inf')
            if i < len(hs):
                d = hs[i] - h
            if i > 0:
                d = min(d, h - hs[i - 1])
            if d > best:
                best = d
        return best
