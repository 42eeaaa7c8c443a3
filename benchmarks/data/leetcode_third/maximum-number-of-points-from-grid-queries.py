from typing import *
import heapq


class Solution:
    def maxPoints(self, grid: List[List[int]], queries: List[int]) -> List[int]:
        m, n = len(grid), len(grid[0])
        order = sorted(range(len(queries)), key=lambda i: queries[i])
        ans = [0] * len(queries)
        seen = [[False] * n for _ in range(m)]
        heap = [(grid[0][0], 0, 0)]
        seen[0][0] = True
        count = 0
        for qi in order:
            q = queries[qi]
            while heap and heap[0][0] < q:
                _, r, c = heapq.heappop(heap)
                count += 1
                for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= nr < m and 0 <= nc < n and not seen[nr][nc]:
                        seen[nr][nc] = True
                        heapq.heappush(heap, (grid[nr][nc], nr, nc))
            ans[qi] = count
        return ans
