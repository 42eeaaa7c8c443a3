from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def findTargetSumWays(self, nums: List[int], target: int) -> int:
        ways = Counter({0: 1})
        for x in nums:
            nxt = Counter()
            for v, c in ways.items():
                nxt[v + x] += c
                nxt[v - x] += c
            ways = nxt
        return ways.get(target, 0)
