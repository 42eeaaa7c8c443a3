from typing import *
from collections import Counter


class Solution:
    def getHint(self, secret: str, guess: str) -> str:
        bulls = 0
        cs = Counter()
        cg = Counter()
        for a, b in zip(secret, guess):
            if a == b:
                bulls += 1
            else:
                cs[a] += 1
                cg[b] += 1
        cows = sum(min(v, cg[k]) for k, v in cs.items())
        return f"{bulls}A{cows}B"
