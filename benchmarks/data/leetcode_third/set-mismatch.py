from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def findErrorNums(self, nums: List[int]) -> List[int]:
        n = len(nums)
        seen = [False] * (n + 1)
        dup = -1
        for x in nums:
            if seen[x]:
                dup = x
            seen[x] = True
        miss = next(i for i in range(1, n + 1) if not seen[i])
        return [dup, miss]
