from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def findMaximumElegance(self, items: List[List[int]], k: int) -> int:
        items = sorted(items, key=lambda x: -x[0])
        seen = set()
        dups = []
        profit = 0
        for p, c in items[:k]:
            profit += p
            if c in seen:
                dups.append(p)
            else:
                seen.add(c)
        best = profit + len(seen) ** 2
        for p, c in items[k:]:
            if c in seen or not dups:
                continue
            profit += p - dups.pop()
            seen.add(c)
            best = max(best, profit + len(seen) ** 2)
        return best
