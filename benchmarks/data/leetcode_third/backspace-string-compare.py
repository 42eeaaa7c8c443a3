from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def backspaceCompare(self, s: str, t: str) -> bool:
        def build(x):
            out = []
            for ch in x:
                if ch == '#':
                    if out:
                        out.pop()
                else:
                    out.append(ch)
            return out
        return build(s) == build(t)
