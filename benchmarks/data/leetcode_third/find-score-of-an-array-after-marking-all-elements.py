from typing import *


class Solution:
    def findScore(self, nums: List[int]) -> int:
        n = len(nums)
        marked = [False] * (n + 2)
        score = 0
        for i in sorted(range(n), key=lambda i: (nums[i], i)):
            if marked[i + 1]:
                continue
            score += nums[i]
            marked[i] = marked[i + 1] = marked[i + 2] = True
        return score
