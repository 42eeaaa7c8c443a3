from typing import *
from collections import deque


class Solution:
    def distanceToCycle(self, n: int, edges: List[List[int]]) -> List[int]:
        adj = [[] for _ in range(n)]
        deg = [0] * n
        for a, b in edges:
            adj[a].append(b)
            adj[b].append(a)
            deg[a] += 1
            deg[b] += 1
        removed = [False] * n
        q = deque(v for v in range(n) if deg[v] == 1)
        while q:
            v = q.popleft()
            removed[v] = True
            for u in adj[v]:
                if not removed[u]:
                    deg[u] -= 1
                    if deg[u] == 1:
                        q.append(u)
        dist = [-1] * n
        q = deque()
        for v in range(n):
            if not removed[v]:
                dist[v] = 0
                q.append(v)
        while q:
            v = q.popleft()
            for u in adj[v]:
                if dist[u] < 0:
                    dist[u] = dist[v] + 1
                    q.append(u)
        return dist
