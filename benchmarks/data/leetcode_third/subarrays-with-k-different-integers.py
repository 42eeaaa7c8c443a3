from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def subarraysWithKDistinct(self, nums: List[int], k: int) -> int:
        def at_most(m):
            if m <= 0:
                return 0
            cnt = defaultdict(int)
            distinct = 0
            left = 0
            total = 0
            for right, v in enumerate(nums):
                if cnt[v] == 0:
                    distinct += 1
                cnt[v] += 1
                while distinct > m:
                    u = nums[left]
                    cnt[u] -= 1
                    if cnt[u] == 0:
                        distinct -= 1
                    left += 1
                total += right - left + 1
            return total
        return at_most(k) - at_most(k - 1)
