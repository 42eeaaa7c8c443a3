from typing import *
from collections import deque


class Solution:
    def shortestPathLength(self, graph: List[List[int]]) -> int:
        n = len(graph)
        full = (1 << n) - 1
        if n <= 1:
            return 0
        seen = [[False] * (1 << n) for _ in range(n)]
        q = deque()
        for v in range(n):
            seen[v][1 << v] = True
            q.append((v, 1 << v, 0))
        while q:
            v, mask, d = q.popleft()
            for u in graph[v]:
                nm = mask | (1 << u)
                if nm == full:
                    return d + 1
                if not seen[u][nm]:
                    seen[u][nm] = True
                    q.append((u, nm, d + 1))
        return 0
