from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def minFlipsMonoIncr(self, s: str) -> int:
        ones = 0
        best = 0
        for ch in s:
            if ch == '1':
                ones += 1
            else:
                best = min(best + 1, ones)
        return best
