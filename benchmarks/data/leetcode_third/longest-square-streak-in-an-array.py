from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def longestSquareStreak(self, nums: List[int]) -> int:
        present = set(nums)
        best = 0
        for x in present:
            r = math.isqrt(x)
            if r * r == x and r in present:
                continue
            length = 1
            cur = x
            while cur * cur in present:
                cur *= cur
                length += 1
            best = max(best, length)
        return best if best >= 2 else -1
