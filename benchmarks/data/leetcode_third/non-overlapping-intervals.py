from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def eraseOverlapIntervals(self, intervals: List[List[int]]) -> int:
        kept = 0
        end = -float('inf')
        for s, e in sorted(intervals, key=lambda x: x[1]):
            if s >= end:
                kept += 1
                end = e
        return len(intervals) - kept
