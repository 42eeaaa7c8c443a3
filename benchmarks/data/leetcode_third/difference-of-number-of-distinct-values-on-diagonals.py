from typing import *


class Solution:
    def differenceOfDistinctValues(self, grid: List[List[int]]) -> List[List[int]]:
        m, n = len(grid), len(grid[0])
        ans = [[0] * n for _ in range(m)]
        starts = [(0, c) for c in range(n)] + [(r, 0) for r in range(1, m)]
        for r0, c0 in starts:
            cells = []
            r, c = r0, c0
            while r < m and c < n:
                cells.append((r, c))
                r += 1
                c += 1
            L = len(cells)
            before = [0] * L
            seen = set()
            for k in range(L):
                before[k] = len(seen)
                seen.add(grid[cells[k][0]][cells[k][1]])
            seen = set()
            for k in range(L - 1, -1, -1):
                r, c = cells[k]
                ans[r][c] = abs(before[k] - len(seen))
                seen.add(grid[r][c])
        return ans
