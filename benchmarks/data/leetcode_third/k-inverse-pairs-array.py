from typing import *


class Solution:
    def kInversePairs(self, n: int, k: int) -> int:
        MOD = 10**9 + 7
        dp = [1] + [0] * k
        for i in range(2, n + 1):
            new = [0] * (k + 1)
            run = 0
            for j in range(k + 1):
                run += dp[j]
                if j - i >= 0:
                    run -= dp[j - i]
                new[j] = run % MOD
            dp = new
        return dp[k] % MOD
