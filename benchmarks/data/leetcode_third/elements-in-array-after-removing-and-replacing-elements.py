from typing import *


class Solution:
    def elementInNums(self, nums: List[int], queries: List[List[int]]) -> List[int]:
        n = len(nums)
        res = []
        for t, idx in queries:
            t %= 2 * n
            if t < n:
                res.append(nums[t + idx] if idx < n - t else -1)
            else:
                t -= n
                res.append(nums[idx] if idx < t else -1)
        return res
