from typing import *
from collections import deque


class Solution:
    def shortestPath(self, grid: List[List[int]], k: int) -> int:
        m, n = len(grid), len(grid[0])
        if k >= m + n - 2:
            return m + n - 2
        best = [[-1] * n for _ in range(m)]
        best[0][0] = k
        q = deque([(0, 0, k)])
        steps = 0
        while q:
            for _ in range(len(q)):
                r, c, rem = q.popleft()
                if r == m - 1 and c == n - 1:
                    return steps
                for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= nr < m and 0 <= nc < n:
                        nrem = rem - grid[nr][nc]
                        if nrem > best[nr][nc]:
                            best[nr][nc] = nrem
                            q.append((nr, nc, nrem))
            steps += 1
        return -1
