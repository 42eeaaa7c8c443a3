from typing import *


class Solution:
    def smallestTrimmedNumbers(self, nums: List[str], queries: List[List[int]]) -> List[int]:
        L = len(nums[0])
        cache = {}
        res = []
        for k, t in queries:
            if t not in cache:
                cache[t] = sorted(range(len(nums)), key=lambda i: (nums[i][L - t:], i))
            res.append(cache[t][k - 1])
        return res
