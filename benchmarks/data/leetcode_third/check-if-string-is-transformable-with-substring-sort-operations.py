from typing import *
from collections import deque


class Solution:
    def isTransformable(self, s: str, t: str) -> bool:
        if len(s) != len(t):
            return False
        pos = [deque() for _ in range(10)]
        for i, c in enumerate(s):
            pos[ord(c) - 48].append(i)
        for c in t:
            d = ord(c) - 48
            if not pos[d]:
                return False
            p = pos[d][0]
            for smaller in range(d):
                if pos[smaller] and pos[smaller][0] < p:
                    return False
            pos[d].popleft()
        return True
