from typing import *


class Solution:
    def bestRotation(self, nums: List[int]) -> int:
        n = len(nums)
        diff = [0] * (n + 1)
        for i, v in enumerate(nums):
            if v >= n:
                continue
            lo = (i + 1) % n
            length = n - v
            hi = lo + length
            if hi <= n:
                diff[lo] += 1
                diff[hi] -= 1
            else:
                diff[lo] += 1
                diff[n] -= 1
                diff[0] += 1
                diff[hi - n] -= 1
        best_k = 0
        best = -1
        cur = 0
        for k in range(n):
            cur += diff[k]
            if cur > best:
                best = cur
                best_k = k
        return best_k
