from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def sumOfDigits(self, nums: List[int]) -> int:
        d = sum(int(c) for c in str(min(nums)))
        return 0 if d % 2 else 1
