from typing import *
from collections import defaultdict


class Solution:
    def matrixRankTransform(self, matrix: List[List[int]]) -> List[List[int]]:
        m, n = len(matrix), len(matrix[0])
        groups = defaultdict(list)
        for i in range(m):
            for j in range(n):
                groups[matrix[i][j]].append((i, j))
        rowmax = [0] * m
        colmax = [0] * n
        ans = [[0] * n for _ in range(m)]
        parent = list(range(m + n))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for v in sorted(groups):
            cells = groups[v]
            touched = []
            for i, j in cells:
                touched.append(i)
                touched.append(m + j)
                a, b = find(i), find(m + j)
                if a != b:
                    parent[a] = b
            best = {}
            for i, j in cells:
                r = find(i)
                cur = max(rowmax[i], colmax[j])
                if best.get(r, 0) < cur:
                    best[r] = cur
                elif r not in best:
                    best[r] = cur
            for i, j in cells:
                rk = best[find(i)] + 1
                ans[i][j] = rk
                rowmax[i] = rk
                colmax[j] = rk
            for x in touched:
                parent[x] = x
        return ans
