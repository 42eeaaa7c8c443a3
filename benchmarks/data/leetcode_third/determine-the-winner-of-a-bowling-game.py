from typing import *


class Solution:
    def isWinner(self, player1: List[int], player2: List[int]) -> int:
        def score(p):
            s = 0
            for i, x in enumerate(p):
                if (i >= 1 and p[i - 1] == 10) or (i >= 2 and p[i - 2] == 10):
                    s += 2 * x
                else:
                    s += x
            return s

        a, b = score(player1), score(player2)
        if a > b:
            return 1
        if b > a:
            return 2
        return 0
