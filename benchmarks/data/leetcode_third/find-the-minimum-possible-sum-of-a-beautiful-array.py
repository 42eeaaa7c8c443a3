from typing import *


class Solution:
    def minimumPossibleSum(self, n: int, target: int) -> int:
        mod = 10 ** 9 + 7
        m = min(n, target // 2)
        rest = n - m
        total = m * (m + 1) // 2 + rest * target + rest * (rest - 1) // 2
        return total % mod
