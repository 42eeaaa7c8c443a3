from typing import *


class Solution:
    def numIslands(self, grid: List[List[str]]) -> int:
        if not grid:
            return 0
        m, n = len(grid), len(grid[0])
        seen = [[False] * n for _ in range(m)]
        count = 0
        for i in range(m):
            for j in range(n):
                if grid[i][j] == '1' and not seen[i][j]:
                    count += 1
                    seen[i][j] = True
                    stack = [(i, j)]
                    while stack:
                        r, c = stack.pop()
                        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                            if 0 <= nr < m and 0 <= nc < n and not seen[nr][nc] and grid[nr][nc] == '1':
                                seen[nr][nc] = True
                                stack.append((nr, nc))
        return count
