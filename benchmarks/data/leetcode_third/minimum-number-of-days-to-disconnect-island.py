from typing import *


class Solution:
    def minDays(self, grid: List[List[int]]) -> int:
        m, n = len(grid), len(grid[0])
        cells = [(i, j) for i in range(m) for j in range(n) if grid[i][j] == 1]
        if not cells:
            return 0
        if len(cells) == 1:
            return 1

        def nbrs(x, y):
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if 0 <= nx < m and 0 <= ny < n and grid[nx][ny] == 1:
                    yield nx, ny

        disc = {}
        low = {}
        root = cells[0]
        disc[root] = low[root] = 0
        timer = 1
        root_children = 0
        articulation = False
        stack = [(root, None, nbrs(*root))]
        while stack:
            node, parent, it = stack[-1]
            advanced = False
            for nb in it:
                if nb == parent:
                    continue
                if nb in disc:
                    if disc[nb] < low[node]:
                        low[node] = disc[nb]
                else:
                    disc[nb] = low[nb] = timer
                    timer += 1
                    if node == root:
                        root_children += 1
                    stack.append((nb, node, nbrs(*nb)))
                    advanced = True
                    break
            if advanced:
                continue
            stack.pop()
            if parent is not None:
                if low[node] < low[parent]:
                    low[parent] = low[node]
                if parent != root and low[node] >= disc[parent]:
                    articulation = True
        if len(disc) != len(cells):
            return 0
        if articulation or root_children > 1:
            return 1
        return 2
