from typing import *


class Solution:
    def countNegatives(self, grid: List[List[int]]) -> int:
        m, n = len(grid), len(grid[0])
        j = n
        total = 0
        for row in grid:
            while j > 0 and row[j - 1] < 0:
                j -= 1
            total += n - j
        return total
