from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def shuffle(self, nums: List[int], n: int) -> List[int]:
        res = []
        for a, b in zip(nums[:n], nums[n:2 * n]):
            res.append(a)
            res.append(b)
        return res
