from typing import *


class Solution:
    def minimumMoves(self, arr: List[int]) -> int:
        n = len(arr)
        dp = [[0] * (n + 1) for _ in range(n + 1)]
        for i in range(n - 1, -1, -1):
            row = dp[i]
            nxt = dp[i + 1]
            for j in range(i, n):
                best = 1 + nxt[j]
                if i + 1 <= j and arr[i] == arr[i + 1]:
                    c = 1 + (dp[i + 2][j] if i + 2 <= j else 0)
                    if c < best:
                        best = c
                for k in range(i + 2, j + 1):
                    if arr[k] == arr[i]:
                        c = nxt[k - 1] + (dp[k + 1][j] if k + 1 <= j else 0)
                        if c < best:
                            best = c
                row[j] = best
        return dp[0][n - 1]
