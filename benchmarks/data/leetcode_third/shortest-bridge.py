from typing import *
from collections import deque


class Solution:
    def shortestBridge(self, grid: List[List[int]]) -> int:
        n = len(grid)
        dist = [[-1] * n for _ in range(n)]
        si = sj = -1
        for i in range(n):
            for j in range(n):
                if grid[i][j] == 1:
                    si, sj = i, j
                    break
            if si >= 0:
                break
        q = deque()
        dist[si][sj] = 0
        stack = [(si, sj)]
        while stack:
            r, c = stack.pop()
            q.append((r, c))
            for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if 0 <= nr < n and 0 <= nc < n and dist[nr][nc] < 0 and grid[nr][nc] == 1:
                    dist[nr][nc] = 0
                    stack.append((nr, nc))
        while q:
            r, c = q.popleft()
            d = dist[r][c]
            for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if 0 <= nr < n and 0 <= nc < n and dist[nr][nc] < 0:
                    if grid[nr][nc] == 1:
                        return d
                    dist[nr][nc] = d + 1
                    q.append((nr, nc))
        return -1
