from typing import *


class Solution:
    def countTriples(self, n: int) -> int:
        squares = {c * c for c in range(1, n + 1)}
        cnt = 0
        for a in range(1, n + 1):
            for b in range(1, n + 1):
                if a * a + b * b in squares:
                    cnt += 1
        return cnt
