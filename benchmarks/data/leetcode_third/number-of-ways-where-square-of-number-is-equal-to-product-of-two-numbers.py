from typing import *
from collections import Counter


class Solution:
    def numTriplets(self, nums1: List[int], nums2: List[int]) -> int:
        def count(a, b):
            cb = Counter(b)
            items = list(cb.items())
            sq = Counter(x * x for x in a)
            total = 0
            for s, mult in sq.items():
                pairs = 0
                for v, c in items:
                    if s % v:
                        continue
                    w = s // v
                    if w < v:
                        continue
                    if w == v:
                        pairs += c * (c - 1) // 2
                    else:
                        pairs += c * cb.get(w, 0)
                total += pairs * mult
            return total
        return count(nums1, nums2) + count(nums2, nums1)
