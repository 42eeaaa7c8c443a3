from typing import *


class Solution:
    def minAbsDifference(self, nums: List[int], goal: int) -> int:
        def sums(arr):
            res = [0]
            for v in arr:
                res.extend([x + v for x in res])
                res.sort()
            return res

        h = len(nums) // 2
        a = sums(nums[:h])
        b = sums(nums[h:])
        best = abs(goal)
        i, j = 0, len(b) - 1
        na = len(a)
        while i < na and j >= 0:
            d = a[i] + b[j] - goal
            if d < 0:
                if -d < best:
                    best = -d
                i += 1
            elif d > 0:
                if d < best:
                    best = d
                j -= 1
            else:
                return 0
        return best
