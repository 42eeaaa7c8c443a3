from typing import *


class Solution:
    def threeSum(self, nums: List[int]) -> List[List[int]]:
        a = sorted(nums)
        n = len(a)
        res = []
        for i in range(n - 2):
            if a[i] > 0:
                break
            if i > 0 and a[i] == a[i - 1]:
                continue
            lo, hi = i + 1, n - 1
            while lo < hi:
                t = a[i] + a[lo] + a[hi]
                if t < 0:
                    lo += 1
                elif t > 0:
                    hi -= 1
                else:
                    res.append([a[i], a[lo], a[hi]])
                    lo += 1
                    hi -= 1
                    while lo < hi and a[lo] == a[lo - 1]:
                        lo += 1
                    while lo < hi and a[hi] == a[hi + 1]:
                        hi -= 1
        return res
