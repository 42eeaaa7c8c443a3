from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def maxProduct(self, words: List[str]) -> int:
        best = {}
        for w in words:
            m = 0
            for ch in w:
                m |= 1 << (ord(ch) - 97)
            if best.get(m, 0) < len(w):
                best[m] = len(w)
        items = list(best.items())
        ans = 0
        for i in range(len(items)):
            mi, li = items[i]
            for j in range(i + 1, len(items)):
                mj, lj = items[j]
                if not (mi & mj) and li * lj > ans:
                    ans = li * lj
        return ans
