from typing import *


class Solution:
    def fixedPoint(self, arr: List[int]) -> int:
        lo, hi = 0, len(arr) - 1
        ans = -1
        while lo <= hi:
            m = (lo + hi) // 2
            if arr[m] >= m:
                if arr[m] == m:
                    ans = m
                hi = m - 1
            else:
                lo = m + 1
        return ans
