from typing import *


class Solution:
    def minPathSum(self, grid: List[List[int]]) -> int:
        m, n = len(grid), len(grid[0])
        row = [0] * n
        acc = 0
        for j in range(n):
            acc += grid[0][j]
            row[j] = acc
        for i in range(1, m):
            g = grid[i]
            row[0] += g[0]
            for j in range(1, n):
                a = row[j]
                b = row[j - 1]
                row[j] = (a if a < b else b) + g[j]
        return row[-1]
