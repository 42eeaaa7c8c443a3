from typing import *
from collections import defaultdict


class Solution:
    def countInterestingSubarrays(self, nums: List[int], modulo: int, k: int) -> int:
        seen = defaultdict(int)
        seen[0] = 1
        c = 0
        res = 0
        for v in nums:
            if v % modulo == k:
                c = (c + 1) % modulo
            res += seen[(c - k) % modulo]
            seen[c] += 1
        return res
