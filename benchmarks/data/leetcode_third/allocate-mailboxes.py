from typing import *


class Solution:
    def minDistance(self, houses: List[int], k: int) -> int:
        h = sorted(houses)
        n = len(h)
        cost = [[0] * n for _ in range(n)]
        for i in range(n - 1, -1, -1):
            for j in range(i + 1, n):
                cost[i][j] = cost[i + 1][j - 1] + h[j] - h[i]
        INF = float('inf')
        prev = [cost[0][j] for j in range(n)]
        for b in range(2, k + 1):
            cur = [INF] * n
            for j in range(b - 1, n):
                best = INF
                for i in range(b - 1, j + 1):
                    v = prev[i - 1] + cost[i][j]
                    if v < best:
                        best = v
                cur[j] = best
            prev = cur
        return prev[n - 1]
