from typing import *


class Solution:
    def missingElement(self, nums: List[int], k: int) -> int:
        def missing(i):
            return nums[i] - nums[0] - i

        n = len(nums)
        if k > missing(n - 1):
            return nums[-1] + k - missing(n - 1)
        lo, hi = 0, n - 1
        while lo < hi:
            m = (lo + hi) // 2
            if missing(m) >= k:
                hi = m
            else:
                lo = m + 1
        return nums[lo - 1] + k - missing(lo - 1)
