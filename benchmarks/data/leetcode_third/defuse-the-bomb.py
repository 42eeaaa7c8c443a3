from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def decrypt(self, code: List[int], k: int) -> List[int]:
        n = len(code)
        if k == 0:
            return [0] * n
        res = []
        for i in range(n):
            if k > 0:
                res.append(sum(code[(i + d) % n] for d in range(1, k + 1)))
            else:
                res.append(sum(code[(i - d) % n] for d in range(1, -k + 1)))
        return res
