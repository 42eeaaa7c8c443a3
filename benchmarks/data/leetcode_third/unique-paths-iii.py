from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def uniquePathsIII(self, grid: List[List[int]]) -> int:
        m, n = len(grid), len(grid[0])
        need = 0
        start = end = None
        for i in range(m):
            for j in range(n):
                v = grid[i][j]
                if v != -1:
                    need += 1
                if v == 1:
                    start = (i, j)
                elif v == 2:
                    end = (i, j)
        visited = [[grid[i][j] == -1 for j in range(n)] for i in range(m)]
        def dfs(x, y, cnt):
            if (x, y) == end:
                return 1 if cnt == need else 0
            total = 0
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if 0 <= nx < m and 0 <= ny < n and not visited[nx][ny]:
                    visited[nx][ny] = True
                    total += dfs(nx, ny, cnt + 1)
                    visited[nx][ny] = False
            return total
        visited[start[0]][start[1]] = True
        return dfs(start[0], start[1], 1)
