from typing import *


class Solution:
    def findPrefixScore(self, nums: List[int]) -> List[int]:
        res = []
        mx = 0
        total = 0
        for x in nums:
            if x > mx:
                mx = x
            total += x + mx
            res.append(total)
        return res
