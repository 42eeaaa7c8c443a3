from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def findEvenNumbers(self, digits: List[int]) -> List[int]:
        have = Counter(digits)
        res = []
        for x in range(100, 1000, 2):
            need = Counter((x // 100, x // 10 % 10, x % 10))
            if all(have[d] >= c for d, c in need.items()):
                res.append(x)
        return res
