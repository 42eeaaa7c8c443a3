from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def minCost(self, maxTime: int, edges: List[List[int]], passingFees: List[int]) -> int:
        n = len(passingFees)
        adj = [[] for _ in range(n)]
        for x, y, t in edges:
            adj[x].append((y, t))
            adj[y].append((x, t))
        INF = float('inf')
        best_time = [INF] * n
        heap = [(passingFees[0], 0, 0)]
        while heap:
            cost, time, u = heapq.heappop(heap)
            if u == n - 1:
                return cost
            if time >= best_time[u]:
                continue
            best_time[u] = time
            for v, t in adj[u]:
                nt = time + t
                if nt <= maxTime and nt < best_time[v]:
                    heapq.heappush(heap, (cost + passingFees[v], nt, v))
        return -1
