from typing import *
from collections import defaultdict


class Solution:
    def numSubarraysWithSum(self, nums: List[int], goal: int) -> int:
        seen = defaultdict(int)
        seen[0] = 1
        s = 0
        total = 0
        for x in nums:
            s += x
            total += seen[s - goal]
            seen[s] += 1
        return total
