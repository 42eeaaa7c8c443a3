from typing import *


class Solution:
    def minimumCardPickup(self, cards: List[int]) -> int:
        last = {}
        best = -1
        for i, c in enumerate(cards):
            if c in last:
                d = i - last[c] + 1
                if best < 0 or d < best:
                    best = d
            last[c] = i
        return best
