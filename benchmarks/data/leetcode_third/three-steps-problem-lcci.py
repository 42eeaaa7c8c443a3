from typing import *


class Solution:
    def waysToStep(self, n: int) -> int:
        mod = 1000000007
        a, b, c = 0, 0, 1
        for _ in range(n):
            a, b, c = b, c, (a + b + c) % mod
        return c
