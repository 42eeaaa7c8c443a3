from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def numPrimeArrangements(self, n: int) -> int:
        MOD = 10**9 + 7
        sieve = [True] * (n + 1)
        p = 0
        for i in range(2, n + 1):
            if sieve[i]:
                p += 1
                for j in range(i * i, n + 1, i):
                    sieve[j] = False
        r = 1
        for i in range(2, p + 1):
            r = r * i % MOD
        for i in range(2, n - p + 1):
            r = r * i % MOD
        return r
