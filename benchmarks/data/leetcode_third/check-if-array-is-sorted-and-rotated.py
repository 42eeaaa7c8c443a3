from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def check(self, nums: List[int]) -> bool:
        n = len(nums)
        drops = sum(1 for i in range(n) if nums[i] > nums[(i + 1) % n])
        return drops <= 1
