from typing import *
import heapq


class Solution:
    def smallestRange(self, nums: List[List[int]]) -> List[int]:
        heap = [(lst[0], i, 0) for i, lst in enumerate(nums)]
        heapq.heapify(heap)
        hi = max(lst[0] for lst in nums)
        best = [heap[0][0], hi]
        while True:
            v, i, j = heapq.heappop(heap)
            if hi - v < best[1] - best[0] or (hi - v == best[1] - best[0] and v < best[0]):
                best = [v, hi]
            if j + 1 == len(nums[i]):
                return best
            nv = nums[i][j + 1]
            if nv > hi:
                hi = nv
            heapq.heappush(heap, (nv, i, j + 1))
