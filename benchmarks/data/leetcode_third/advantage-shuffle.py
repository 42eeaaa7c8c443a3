from typing import *


class Solution:
    def advantageCount(self, nums1: List[int], nums2: List[int]) -> List[int]:
        a = sorted(nums1)
        order = sorted(range(len(nums2)), key=lambda i: nums2[i], reverse=True)
        lo, hi = 0, len(a) - 1
        res = [0] * len(a)
        for i in order:
            if a[hi] > nums2[i]:
                res[i] = a[hi]
                hi -= 1
            else:
                res[i] = a[lo]
                lo += 1
        return res
