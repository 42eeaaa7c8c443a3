from typing import *
from collections import defaultdict


class Solution:
    def numberOfArithmeticSlices(self, nums: List[int]) -> int:
        n = len(nums)
        dp = [defaultdict(int) for _ in range(n)]
        total = 0
        for i in range(n):
            di = dp[i]
            vi = nums[i]
            for j in range(i):
                d = vi - nums[j]
                c = dp[j].get(d, 0)
                total += c
                di[d] += c + 1
        return total
