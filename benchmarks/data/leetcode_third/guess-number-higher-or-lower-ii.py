from typing import *


class Solution:
    def getMoneyAmount(self, n: int) -> int:
        dp = [[0] * (n + 2) for _ in range(n + 2)]
        for length in range(2, n + 1):
            for lo in range(1, n - length + 2):
                hi = lo + length - 1
                best = float('inf')
                row_lo = dp[lo]
                for g in range(lo, hi + 1):
                    left = row_lo[g - 1] if g > lo else 0
                    right = dp[g + 1][hi] if g < hi else 0
                    c = g + (left if left > right else right)
                    if c < best:
                        best = c
                dp[lo][hi] = best
        return dp[1][n] if n >= 1 else 0
