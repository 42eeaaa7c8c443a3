from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def nthSuperUglyNumber(self, n: int, primes: List[int]) -> int:
        ugly = [1]
        heap = [(p, p, 0) for p in primes]
        heapq.heapify(heap)
        while len(ugly) < n:
            v = heap[0][0]
            ugly.append(v)
            while heap[0][0] == v:
                _, p, idx = heap[0]
                heapq.heapreplace(heap, (p * ugly[idx + 1], p, idx + 1))
        return ugly[n - 1]
