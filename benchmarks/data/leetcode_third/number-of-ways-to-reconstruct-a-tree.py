from typing import *
from collections import defaultdict


class Solution:
    def checkWays(self, pairs: List[List[int]]) -> int:
        adj = defaultdict(set)
        for x, y in pairs:
            adj[x].add(y)
            adj[y].add(x)
        nodes = list(adj)
        n = len(nodes)
        deg = {v: len(adj[v]) for v in nodes}
        if max(deg.values()) != n - 1:
            return 0
        multiple = False
        root_seen = False
        for v in nodes:
            if deg[v] == n - 1 and not root_seen:
                root_seen = True
                continue
            par = None
            for u in adj[v]:
                if deg[u] >= deg[v] and (par is None or deg[u] < deg[par]):
                    par = u
            if par is None:
                return 0
            for u in adj[v]:
                if u != par and u not in adj[par]:
                    return 0
            if deg[par] == deg[v]:
                multiple = True
        return 2 if multiple else 1
