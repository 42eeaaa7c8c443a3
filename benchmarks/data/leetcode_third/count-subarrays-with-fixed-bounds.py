from typing import *


class Solution:
    def countSubarrays(self, nums: List[int], minK: int, maxK: int) -> int:
        bad = -1
        lmin = lmax = -1
        ans = 0
        for i, v in enumerate(nums):
            if v < minK or v > maxK:
                bad = i
            if v == minK:
                lmin = i
            if v == maxK:
                lmax = i
            s = min(lmin, lmax)
            if s > bad:
                ans += s - bad
        return ans
