from typing import *


class Solution:
    def flipgame(self, fronts: List[int], backs: List[int]) -> int:
        bad = {f for f, b in zip(fronts, backs) if f == b}
        cand = [x for x in fronts + backs if x not in bad]
        return min(cand) if cand else 0
