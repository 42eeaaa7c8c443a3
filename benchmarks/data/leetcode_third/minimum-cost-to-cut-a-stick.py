from typing import *


class Solution:
    def minCost(self, n: int, cuts: List[int]) -> int:
        p = [0] + sorted(cuts) + [n]
        m = len(p)
        dp = [[0] * m for _ in range(m)]
        for gap in range(2, m):
            for i in range(m - gap):
                j = i + gap
                di = dp[i]
                best = min(di[k] + dp[k][j] for k in range(i + 1, j))
                di[j] = best + p[j] - p[i]
        return dp[0][m - 1]
