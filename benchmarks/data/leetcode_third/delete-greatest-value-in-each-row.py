from typing import *


class Solution:
    def deleteGreatestValue(self, grid: List[List[int]]) -> int:
        rows = [sorted(r) for r in grid]
        return sum(max(col) for col in zip(*rows))
