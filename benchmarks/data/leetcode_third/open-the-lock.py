from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def openLock(self, deadends: List[str], target: str) -> int:
        dead = set(deadends)
        if '0000' in dead:
            return -1
        if target == '0000':
            return 0
        dist = {'0000': 0}
        q = deque(['0000'])
        while q:
            cur = q.popleft()
            d = dist[cur]
            for i in range(4):
                digit = int(cur[i])
                for step in (1, 9):
                    nxt = cur[:i] + str((digit + step) % 10) + cur[i + 1:]
                    if nxt in dist or nxt in dead:
                        continue
                    if nxt == target:
                        return d + 1
                    dist[nxt] = d + 1
                    q.append(nxt)
        return -1
