from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def maxKelements(self, nums: List[int], k: int) -> int:
        h = [-x for x in nums]
        heapq.heapify(h)
        score = 0
        for _ in range(k):
            v = -h[0]
            score += v
            heapq.heapreplace(h, -((v + 2) // 3))
        return score
