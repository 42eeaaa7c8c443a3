from typing import *


class Solution:
    def minTrioDegree(self, n: int, edges: List[List[int]]) -> int:
        es = set()
        for u, v in edges:
            if u != v:
                es.add((min(u, v), max(u, v)))
        deg = [0] * (n + 1)
        for u, v in es:
            deg[u] += 1
            deg[v] += 1
        order = sorted(range(1, n + 1), key=lambda x: deg[x])
        rank = [0] * (n + 1)
        for r, node in enumerate(order):
            rank[node] = r
        adj = [0] * n
        for u, v in es:
            adj[rank[u]] |= 1 << rank[v]
            adj[rank[v]] |= 1 << rank[u]
        best = -1
        for u, v in es:
            common = adj[rank[u]] & adj[rank[v]]
            if common:
                w = order[(common & -common).bit_length() - 1]
                d = deg[u] + deg[v] + deg[w] - 6
                if best == -1 or d < best:
                    best = d
        return best
