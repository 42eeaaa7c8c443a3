from typing import *


class Solution:
    def largestNumber(self, cost: List[int], target: int) -> str:
        NEG = float('-inf')
        dp = [NEG] * (target + 1)
        dp[0] = 0
        for t in range(1, target + 1):
            b = NEG
            for c in cost:
                if c <= t and dp[t - c] + 1 > b:
                    b = dp[t - c] + 1
            dp[t] = b
        if dp[target] == NEG:
            return "0"
        out = []
        t = target
        while t > 0:
            for d in range(9, 0, -1):
                c = cost[d - 1]
                if c <= t and dp[t - c] == dp[t] - 1:
                    out.append(str(d))
                    t -= c
                    break
        return ''.join(out)
