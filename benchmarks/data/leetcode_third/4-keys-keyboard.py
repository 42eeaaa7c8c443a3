from typing import *


class Solution:
    def maxA(self, n: int) -> int:
        dp = [0] * (n + 1)
        for i in range(1, n + 1):
            best = dp[i - 1] + 1
            for j in range(1, i - 2):
                v = dp[j] * (i - j - 1)
                if v > best:
                    best = v
            dp[i] = best
        return dp[n]
