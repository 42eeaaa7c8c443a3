from typing import *


class Solution:
    def maxSum(self, nums: List[int]) -> int:
        best = {}
        res = -1
        for x in nums:
            d = max(str(x))
            if d in best:
                res = max(res, best[d] + x)
                best[d] = max(best[d], x)
            else:
                best[d] = x
        return res
