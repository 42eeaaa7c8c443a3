from typing import *
from collections import Counter


class Solution:
    def countNicePairs(self, nums: List[int]) -> int:
        c = Counter(x - int(str(x)[::-1]) for x in nums)
        return sum(v * (v - 1) // 2 for v in c.values()) % (10**9 + 7)
