from typing import *


class Solution:
    def findMinHeightTrees(self, n: int, edges: List[List[int]]) -> List[int]:
        if n <= 2:
            return list(range(n))
        adj = [[] for _ in range(n)]
        deg = [0] * n
        for a, b in edges:
            adj[a].append(b)
            adj[b].append(a)
            deg[a] += 1
            deg[b] += 1
        layer = [v for v in range(n) if deg[v] == 1]
        left = n
        while left > 2:
            left -= len(layer)
            nxt = []
            for v in layer:
                for u in adj[v]:
                    deg[u] -= 1
                    if deg[u] == 1:
                        nxt.append(u)
            layer = nxt
        return sorted(layer)
