from typing import *


class Solution:
    def surfaceArea(self, grid: List[List[int]]) -> int:
        n = len(grid)
        total = 0
        for i in range(n):
            for j in range(len(grid[i])):
                v = grid[i][j]
                if v:
                    total += 4 * v + 2
                if i > 0:
                    total -= 2 * min(v, grid[i - 1][j])
                if j > 0:
                    total -= 2 * min(v, grid[i][j - 1])
        return total
