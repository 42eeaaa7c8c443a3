from typing import *


class Solution:
    def minimumChanges(self, s: str, k: int) -> int:
        n = len(s)
        INF = float('inf')
        divs = [[] for _ in range(n + 1)]
        for d in range(1, n + 1):
            for L in range(2 * d, n + 1, d):
                divs[L].append(d)
        cost = [[INF] * (n + 1) for _ in range(n + 1)]
        for i in range(n):
            for j in range(i + 2, n + 1):
                L = j - i
                sub = s[i:j]
                best = INF
                for d in divs[L]:
                    c = 0
                    m = L // d
                    for r in range(d):
                        g = sub[r::d]
                        for t in range(m // 2):
                            if g[t] != g[m - 1 - t]:
                                c += 1
                    if c < best:
                        best = c
                cost[i][j] = best
        dp = [INF] * (n + 1)
        dp[0] = 0
        for _ in range(k):
            nd = [INF] * (n + 1)
            for i in range(n):
                if dp[i] == INF:
                    continue
                base = dp[i]
                ci = cost[i]
                for j in range(i + 2, n + 1):
                    v = base + ci[j]
                    if v < nd[j]:
                        nd[j] = v
            dp = nd
        return dp[n]
