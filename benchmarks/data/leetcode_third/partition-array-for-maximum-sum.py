from typing import *


class Solution:
    def maxSumAfterPartitioning(self, arr: List[int], k: int) -> int:
        n = len(arr)
        dp = [0] * (n + 1)
        for i in range(1, n + 1):
            mx = 0
            best = 0
            for L in range(1, min(k, i) + 1):
                v = arr[i - L]
                if v > mx:
                    mx = v
                c = dp[i - L] + mx * L
                if c > best:
                    best = c
            dp[i] = best
        return dp[n]
