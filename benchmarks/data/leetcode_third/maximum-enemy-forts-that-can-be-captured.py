from typing import *


class Solution:
    def captureForts(self, forts: List[int]) -> int:
        best = 0
        last = -1
        for i, f in enumerate(forts):
            if f != 0:
                if last >= 0 and forts[last] == -f:
                    best = max(best, i - last - 1)
                last = i
        return best
