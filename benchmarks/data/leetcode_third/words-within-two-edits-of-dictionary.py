from typing import *


class Solution:
    def twoEditWords(self, queries: List[str], dictionary: List[str]) -> List[str]:
        def close(a, b):
            d = 0
            for x, y in zip(a, b):
                if x != y:
                    d += 1
                    if d > 2:
                        return False
            return True
        return [q for q in queries if any(close(q, w) for w in dictionary)]
