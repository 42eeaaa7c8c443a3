from typing import *


class Solution:
    def findTheWinner(self, n: int, k: int) -> int:
        w = 0
        for m in range(2, n + 1):
            w = (w + k) % m
        return w + 1
