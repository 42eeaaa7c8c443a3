from typing import *


class Solution:
    def minOperations(self, n: int) -> int:
        ops = 0
        while n:
            if n & 1:
                if n & 3 == 3:
                    n += 1
                else:
                    n -= 1
                ops += 1
            n >>= 1
        return ops
