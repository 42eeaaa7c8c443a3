from typing import *


class Solution:
    def numEnclaves(self, grid: List[List[int]]) -> int:
        m, n = len(grid), len(grid[0])
        seen = [[False] * n for _ in range(m)]
        stack = []
        for i in range(m):
            for j in range(n):
                if (i == 0 or j == 0 or i == m - 1 or j == n - 1) and grid[i][j] == 1:
                    seen[i][j] = True
                    stack.append((i, j))
        while stack:
            i, j = stack.pop()
            for x, y in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
                if 0 <= x < m and 0 <= y < n and grid[x][y] == 1 and not seen[x][y]:
                    seen[x][y] = True
                    stack.append((x, y))
        return sum(1 for i in range(m) for j in range(n) if grid[i][j] == 1 and not seen[i][j])
