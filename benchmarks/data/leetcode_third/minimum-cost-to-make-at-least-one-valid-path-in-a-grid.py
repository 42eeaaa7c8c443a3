from typing import *
from collections import deque


class Solution:
    def minCost(self, grid: List[List[int]]) -> int:
        m, n = len(grid), len(grid[0])
        dirs = [(0, 1), (0, -1), (1, 0), (-1, 0)]
        INF = float("inf")
        dist = [[INF] * n for _ in range(m)]
        dist[0][0] = 0
        dq = deque([(0, 0, 0)])
        while dq:
            d, i, j = dq.popleft()
            if d > dist[i][j]:
                continue
            if i == m - 1 and j == n - 1:
                return d
            for k, (di, dj) in enumerate(dirs):
                x, y = i + di, j + dj
                if 0 <= x < m and 0 <= y < n:
                    w = 0 if grid[i][j] == k + 1 else 1
                    if d + w < dist[x][y]:
                        dist[x][y] = d + w
                        if w:
                            dq.append((d + 1, x, y))
                        else:
                            dq.appendleft((d, x, y))
        return dist[m - 1][n - 1]
