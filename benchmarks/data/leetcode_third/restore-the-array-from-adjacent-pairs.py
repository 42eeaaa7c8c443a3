from typing import *
from collections import defaultdict


class Solution:
    def restoreArray(self, adjacentPairs: List[List[int]]) -> List[int]:
        adj = defaultdict(list)
        for u, v in adjacentPairs:
            adj[u].append(v)
            adj[v].append(u)
        start = next(x for x, nb in adj.items() if len(nb) == 1)
        res = [start]
        prev = None
        cur = start
        for _ in range(len(adjacentPairs)):
            nb = adj[cur]
            nxt = nb[0] if nb[0] != prev else nb[1]
            res.append(nxt)
            prev, cur = cur, nxt
        return res
