from typing import *
from collections import deque


class Solution:
    def highestRankedKItems(self, grid: List[List[int]], pricing: List[int], start: List[int], k: int) -> List[List[int]]:
        m, n = len(grid), len(grid[0])
        lo, hi = pricing
        sr, sc = start
        seen = [[False] * n for _ in range(m)]
        seen[sr][sc] = True
        q = deque([(sr, sc, 0)])
        found = []
        while q:
            r, c, d = q.popleft()
            v = grid[r][c]
            if lo <= v <= hi:
                found.append((d, v, r, c))
            for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if 0 <= nr < m and 0 <= nc < n and not seen[nr][nc] and grid[nr][nc] != 0:
                    seen[nr][nc] = True
                    q.append((nr, nc, d + 1))
        found.sort()
        return [[r, c] for _, _, r, c in found[:k]]
