from typing import *


class Solution:
    def sumBase(self, n: int, k: int) -> int:
        total = 0
        while n:
            n, d = divmod(n, k)
            total += d
        return total
