from typing import *
import heapq


class Solution:
    def maxProbability(self, n: int, edges: List[List[int]], succProb: List[float], start_node: int = None, end_node: int = None, start: int = None, end: int = None) -> float:
        if start_node is None:
            start_node = start
        if end_node is None:
            end_node = end
        adj = [[] for _ in range(n)]
        for (a, b), p in zip(edges, succProb):
            adj[a].append((b, p))
            adj[b].append((a, p))
        best = [0.0] * n
        best[start_node] = 1.0
        heap = [(-1.0, start_node)]
        while heap:
            negp, v = heapq.heappop(heap)
            p = -negp
            if p < best[v]:
                continue
            if v == end_node:
                return p
            for u, w in adj[v]:
                np_ = p * w
                if np_ > best[u]:
                    best[u] = np_
                    heapq.heappush(heap, (-np_, u))
        return 0.0
