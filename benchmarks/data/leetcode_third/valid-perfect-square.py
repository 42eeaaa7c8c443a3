from typing import *


class Solution:
    def isPerfectSquare(self, num: int) -> bool:
        lo, hi = 1, num
        while lo <= hi:
            m = (lo + hi) // 2
            sq = m * m
            if sq == num:
                return True
            if sq < num:
                lo = m + 1
            else:
                hi = m - 1
        return False
