from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def shiftingLetters(self, s: str, shifts: List[List[int]]) -> str:
        n = len(s)
        diff = [0] * (n + 1)
        for a, b, d in shifts:
            v = 1 if d == 1 else -1
            diff[a] += v
            diff[b + 1] -= v
        out = []
        cur = 0
        for i, ch in enumerate(s):
            cur += diff[i]
            out.append(chr((ord(ch) - 97 + cur) % 26 + 97))
        return ''.join(out)
