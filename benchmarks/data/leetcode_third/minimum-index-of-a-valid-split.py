from typing import *
from collections import Counter


class Solution:
    def minimumIndex(self, nums: List[int]) -> int:
        n = len(nums)
        dom, total = Counter(nums).most_common(1)[0]
        left = 0
        for i in range(n - 1):
            if nums[i] == dom:
                left += 1
            if left * 2 > i + 1 and (total - left) * 2 > n - i - 1:
                return i
        return -1
