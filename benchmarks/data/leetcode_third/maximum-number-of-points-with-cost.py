from typing import *


class Solution:
    def maxPoints(self, points: List[List[int]]) -> int:
        dp = list(points[0])
        n = len(dp)
        for row in points[1:]:
            left = [0] * n
            run = float('-inf')
            for c in range(n):
                run = max(run - 1, dp[c])
                left[c] = run
            run = float('-inf')
            new = [0] * n
            for c in range(n - 1, -1, -1):
                run = max(run - 1, dp[c])
                new[c] = row[c] + max(left[c], run)
            dp = new
        return max(dp)
