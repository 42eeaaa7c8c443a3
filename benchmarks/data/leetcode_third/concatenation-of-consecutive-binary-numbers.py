from typing import *


class Solution:
    def concatenatedBinary(self, n: int) -> int:
        mod = 10 ** 9 + 7
        v = 0
        bits = 0
        for i in range(1, n + 1):
            if i & (i - 1) == 0:
                bits += 1
            v = ((v << bits) | i) % mod
        return v
