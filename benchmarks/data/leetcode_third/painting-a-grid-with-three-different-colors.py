from typing import *
from itertools import product


class Solution:
    def colorTheGrid(self, m: int, n: int) -> int:
        MOD = 10 ** 9 + 7
        cols = [c for c in product(range(3), repeat=m) if all(c[i] != c[i + 1] for i in range(m - 1))]
        k = len(cols)
        adj = [[j for j in range(k) if all(x != y for x, y in zip(cols[i], cols[j]))] for i in range(k)]
        dp = [1] * k
        for _ in range(n - 1):
            nd = [0] * k
            for i in range(k):
                v = dp[i]
                if v:
                    for j in adj[i]:
                        nd[j] += v
            dp = [v % MOD for v in nd]
        return sum(dp) % MOD
