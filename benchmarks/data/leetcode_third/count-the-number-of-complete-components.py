from typing import *


class Solution:
    def countCompleteComponents(self, n: int, edges: List[List[int]]) -> int:
        parent = list(range(n))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for a, b in edges:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb
        nodes = [0] * n
        ecount = [0] * n
        for v in range(n):
            nodes[find(v)] += 1
        for a, _ in edges:
            ecount[find(a)] += 1
        return sum(1 for r in range(n) if nodes[r] and ecount[r] == nodes[r] * (nodes[r] - 1) // 2)
