from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def findTheString(self, lcp: List[List[int]]) -> str:
        n = len(lcp)
        word = [-1] * n
        c = 0
        for i in range(n):
            if word[i] != -1:
                continue
            if c >= 26:
                return ""
            for j in range(i, n):
                if word[j] == -1 and lcp[i][j] > 0:
                    word[j] = c
            c += 1
        for i in range(n - 1, -1, -1):
            row = lcp[i]
            nxt = lcp[i + 1] if i + 1 < n else None
            for j in range(n - 1, -1, -1):
                if word[i] == word[j]:
                    exp = 1 + (nxt[j + 1] if i + 1 < n and j + 1 < n else 0)
                else:
                    exp = 0
                if row[j] != exp:
                    return ""
        return ''.join(chr(97 + x) for x in word)
