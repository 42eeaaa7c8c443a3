from typing import *


class Solution:
    def splitArraySameAverage(self, nums: List[int]) -> bool:
        n = len(nums)
        if n < 2:
            return False
        total = sum(nums)
        half = n // 2
        if not any(total * k % n == 0 for k in range(1, half + 1)):
            return False
        dp = [0] * (half + 1)
        dp[0] = 1
        for x in nums:
            for k in range(half, 0, -1):
                if dp[k - 1]:
                    dp[k] |= dp[k - 1] << x
        for k in range(1, half + 1):
            if total * k % n == 0 and (dp[k] >> (total * k // n)) & 1:
                return True
        return False
