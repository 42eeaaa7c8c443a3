from typing import *


class Solution:
    def maximalRectangle(self, matrix: List[List[str]]) -> int:
        if not matrix or not matrix[0]:
            return 0
        n = len(matrix[0])
        h = [0] * (n + 1)
        best = 0
        for row in matrix:
            for j in range(n):
                h[j] = h[j] + 1 if row[j] == '1' else 0
            st = []
            for j in range(n + 1):
                while st and h[st[-1]] >= h[j]:
                    top = st.pop()
                    left = st[-1] + 1 if st else 0
                    area = h[top] * (j - left)
                    if area > best:
                        best = area
                st.append(j)
        return best
