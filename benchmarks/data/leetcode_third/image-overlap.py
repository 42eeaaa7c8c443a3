from typing import *
from collections import Counter


class Solution:
    def largestOverlap(self, img1: List[List[int]], img2: List[List[int]]) -> int:
        a = [(i, j) for i, row in enumerate(img1) for j, v in enumerate(row) if v]
        b = [(i, j) for i, row in enumerate(img2) for j, v in enumerate(row) if v]
        cnt = Counter()
        for ai, aj in a:
            for bi, bj in b:
                cnt[(ai - bi, aj - bj)] += 1
        return max(cnt.values()) if cnt else 0
