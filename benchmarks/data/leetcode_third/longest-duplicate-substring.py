from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def longestDupSubstring(self, s: str) -> str:
        n = len(s)
        arr = [ord(c) - 96 for c in s]
        MOD = (1 << 61) - 1
        B = 131
        pre = [0] * (n + 1)
        pw = [1] * (n + 1)
        for i, v in enumerate(arr):
            pre[i + 1] = (pre[i] * B + v) % MOD
            pw[i + 1] = pw[i] * B % MOD
        def find(L):
            if L == 0:
                return 0
            seen = {}
            p = pw[L]
            for i in range(n - L + 1):
                h = (pre[i + L] - pre[i] * p) % MOD
                j = seen.get(h)
                if j is not None:
                    if s[j:j + L] == s[i:i + L]:
                        return i
                else:
                    seen[h] = i
            return -1
        lo, hi = 0, n - 1
        best_start = 0
        best_len = 0
        while lo < hi:
            mid = (lo + hi + 1) // 2
            r = find(mid)
            if r >= 0:
                lo = mid
                best_len = mid
                best_start = r
            else:
                hi = mid - 1
        return s[best_start:best_start + best_len]
