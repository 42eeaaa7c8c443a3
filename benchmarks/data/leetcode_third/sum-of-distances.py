from typing import *
from collections import defaultdict


class Solution:
    def distance(self, nums: List[int]) -> List[int]:
        pos = defaultdict(list)
        for i, x in enumerate(nums):
            pos[x].append(i)
        ans = [0] * len(nums)
        for idx in pos.values():
            total = sum(idx)
            m = len(idx)
            left = 0
            for c, i in enumerate(idx):
                right = total - left - i
                ans[i] = i * c - left + right - i * (m - c - 1)
                left += i
        return ans
