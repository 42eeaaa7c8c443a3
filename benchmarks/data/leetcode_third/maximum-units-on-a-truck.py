from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def maximumUnits(self, boxTypes: List[List[int]], truckSize: int) -> int:
        total = 0
        left = truckSize
        for cnt, units in sorted(boxTypes, key=lambda b: -b[1]):
            if left <= 0:
                break
            take = min(cnt, left)
            total += take * units
            left -= take
        return total
