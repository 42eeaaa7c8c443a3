from typing import *


class Solution:
    def largestSubmatrix(self, matrix: List[List[int]]) -> int:
        n = len(matrix[0])
        h = [0] * n
        best = 0
        for row in matrix:
            for j in range(n):
                h[j] = h[j] + 1 if row[j] else 0
            for w, v in enumerate(sorted(h, reverse=True), 1):
                if v == 0:
                    break
                if v * w > best:
                    best = v * w
        return best
