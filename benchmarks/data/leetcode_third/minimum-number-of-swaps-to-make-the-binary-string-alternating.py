from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def minSwaps(self, s: str) -> int:
        n = len(s)
        ones = s.count('1')
        zeros = n - ones
        if abs(ones - zeros) > 1:
            return -1
        def mism(first):
            return sum(1 for i, ch in enumerate(s) if ch != (first if i % 2 == 0 else ('1' if first == '0' else '0')))
        opts = []
        if ones >= zeros:
            opts.append(mism('1') // 2)
        if zeros >= ones:
            opts.append(mism('0') // 2)
        return min(opts)
