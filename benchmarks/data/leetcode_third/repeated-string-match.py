from typing import *


class Solution:
    def repeatedStringMatch(self, a: str, b: str) -> int:
        q = -(-len(b) // len(a))
        for t in (q, q + 1):
            if b in a * t:
                return t
        return -1
