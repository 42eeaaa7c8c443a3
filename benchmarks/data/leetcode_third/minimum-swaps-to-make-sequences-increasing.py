from typing import *


class Solution:
    def minSwap(self, nums1: List[int], nums2: List[int]) -> int:
        keep, swap = 0, 1
        INF = float("inf")
        for i in range(1, len(nums1)):
            a0, b0, a1, b1 = nums1[i - 1], nums2[i - 1], nums1[i], nums2[i]
            nk = ns = INF
            if a0 < a1 and b0 < b1:
                nk = min(nk, keep)
                ns = min(ns, swap + 1)
            if a0 < b1 and b0 < a1:
                nk = min(nk, swap)
                ns = min(ns, keep + 1)
            keep, swap = nk, ns
        return min(keep, swap)
