from typing import *


class Solution:
    def frogPosition(self, n: int, edges: List[List[int]], t: int, target: int) -> float:
        adj = [[] for _ in range(n + 1)]
        for a, b in edges:
            adj[a].append(b)
            adj[b].append(a)
        parent = [0] * (n + 1)
        depth = [0] * (n + 1)
        prob = [0.0] * (n + 1)
        prob[1] = 1.0
        parent[1] = -1
        order = [1]
        seen = [False] * (n + 1)
        seen[1] = True
        i = 0
        while i < len(order):
            v = order[i]
            i += 1
            kids = [u for u in adj[v] if not seen[u]]
            for u in kids:
                seen[u] = True
                parent[u] = v
                depth[u] = depth[v] + 1
                prob[u] = prob[v] / len(kids)
                order.append(u)
        d = depth[target]
        if d > t:
            return 0.0
        if d == t:
            return prob[target]
        has_child = any(u != parent[target] for u in adj[target])
        return 0.0 if has_child else prob[target]
