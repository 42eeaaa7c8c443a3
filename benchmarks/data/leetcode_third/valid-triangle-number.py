from typing import *


class Solution:
    def triangleNumber(self, nums: List[int]) -> int:
        a = sorted(nums)
        n = len(a)
        res = 0
        for k in range(n - 1, 1, -1):
            lo, hi = 0, k - 1
            c = a[k]
            while lo < hi:
                if a[lo] + a[hi] > c:
                    res += hi - lo
                    hi -= 1
                else:
                    lo += 1
        return res
