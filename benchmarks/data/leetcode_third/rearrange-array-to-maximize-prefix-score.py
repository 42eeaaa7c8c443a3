from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def maxScore(self, nums: List[int]) -> int:
        total = 0
        cnt = 0
        for x in sorted(nums, reverse=True):
            total += x
            if total > 0:
                cnt += 1
            else:
                break
        return cnt
