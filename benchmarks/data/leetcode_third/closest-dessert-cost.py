from typing import *


class Solution:
    def closestCost(self, baseCosts: List[int], toppingCosts: List[int], target: int) -> int:
        sums = {0}
        for t in toppingCosts:
            new = set()
            for s in sums:
                new.add(s)
                if s + t <= 2 * target + 20000:
                    new.add(s + t)
                if s + 2 * t <= 2 * target + 20000:
                    new.add(s + 2 * t)
            sums = new
        best = None
        for b in baseCosts:
            for s in sums:
                c = b + s
                if best is None or abs(c - target) < abs(best - target) or (abs(c - target) == abs(best - target) and c < best):
                    best = c
        return best
