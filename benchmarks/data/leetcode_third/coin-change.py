from typing import *


class Solution:
    def coinChange(self, coins: List[int], amount: int) -> int:
        INF = float('inf')
        dp = [0] + [INF] * amount
        for c in coins:
            for v in range(c, amount + 1):
                t = dp[v - c] + 1
                if t < dp[v]:
                    dp[v] = t
        return dp[amount] if dp[amount] != INF else -1
