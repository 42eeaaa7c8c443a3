from typing import *


class Solution:
    def findPeakGrid(self, mat: List[List[int]]) -> List[int]:
        lo, hi = 0, len(mat) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            row = mat[mid]
            j = row.index(max(row))
            if row[j] > mat[mid + 1][j]:
                hi = mid
            else:
                lo = mid + 1
        row = mat[lo]
        return [lo, row.index(max(row))]
