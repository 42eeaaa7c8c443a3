from typing import *
import heapq


class Solution:
    def minimumWeight(self, n: int, edges: List[List[int]], src1: int, src2: int, dest: int) -> int:
        fwd = [[] for _ in range(n)]
        rev = [[] for _ in range(n)]
        for a, b, w in edges:
            fwd[a].append((b, w))
            rev[b].append((a, w))
        INF = float('inf')

        def dijkstra(adj, s):
            dist = [INF] * n
            dist[s] = 0
            pq = [(0, s)]
            while pq:
                d, u = heapq.heappop(pq)
                if d > dist[u]:
                    continue
                for v, w in adj[u]:
                    nd = d + w
                    if nd < dist[v]:
                        dist[v] = nd
                        heapq.heappush(pq, (nd, v))
            return dist

        d1 = dijkstra(fwd, src1)
        d2 = dijkstra(fwd, src2)
        d3 = dijkstra(rev, dest)
        best = min(a + b + c for a, b, c in zip(d1, d2, d3))
        return -1 if best == INF else best
