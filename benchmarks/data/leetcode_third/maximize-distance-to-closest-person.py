from typing import *


class Solution:
    def maxDistToClosest(self, seats: List[int]) -> int:
        pos = [i for i, s in enumerate(seats) if s == 1]
        best = max(pos[0], len(seats) - 1 - pos[-1])
        for a, b in zip(pos, pos[1:]):
            best = max(best, (b - a) // 2)
        return best
