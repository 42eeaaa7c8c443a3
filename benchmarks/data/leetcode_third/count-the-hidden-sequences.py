from typing import *


class Solution:
    def numberOfArrays(self, differences: List[int], lower: int, upper: int) -> int:
        cur = lo = hi = 0
        for d in differences:
            cur += d
            if cur < lo:
                lo = cur
            elif cur > hi:
                hi = cur
        return max(0, (upper - lower) - (hi - lo) + 1)
