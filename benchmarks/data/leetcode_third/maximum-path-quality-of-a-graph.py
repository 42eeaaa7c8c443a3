from typing import *
from collections import defaultdict


class Solution:
    def maximalPathQuality(self, values: List[int], edges: List[List[int]], maxTime: int) -> int:
        adj = defaultdict(list)
        for u, v, t in edges:
            adj[u].append((v, t))
            adj[v].append((u, t))
        visits = [0] * len(values)
        visits[0] = 1
        best = 0

        def dfs(u, time, quality):
            nonlocal best
            if u == 0 and quality > best:
                best = quality
            for v, t in adj[u]:
                if time + t <= maxTime:
                    gain = values[v] if visits[v] == 0 else 0
                    visits[v] += 1
                    dfs(v, time + t, quality + gain)
                    visits[v] -= 1

        dfs(0, 0, values[0])
        return best
