from typing import *


class Solution:
    def regionsBySlashes(self, grid: List[str]) -> int:
        n = len(grid)
        parent = list(range(4 * n * n))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        count = 4 * n * n

        def union(a, b):
            nonlocal count
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb
                count -= 1

        for r in range(n):
            for c in range(n):
                base = 4 * (r * n + c)
                top, right, bottom, left = base, base + 1, base + 2, base + 3
                ch = grid[r][c]
                if ch == ' ':
                    union(top, right)
                    union(right, bottom)
                    union(bottom, left)
                elif ch == '/':
                    union(top, left)
                    union(right, bottom)
                else:
                    union(top, right)
                    union(bottom, left)
                if c + 1 < n:
                    union(right, 4 * (r * n + c + 1) + 3)
                if r + 1 < n:
                    union(bottom, 4 * ((r + 1) * n + c))
        return count
