from typing import *
from bisect import bisect_left


class Solution:
    def minOperations(self, target: List[int], arr: List[int]) -> int:
        idx = {v: i for i, v in enumerate(target)}
        tails = []
        for v in arr:
            if v in idx:
                x = idx[v]
                k = bisect_left(tails, x)
                if k == len(tails):
                    tails.append(x)
                else:
                    tails[k] = x
        return len(target) - len(tails)
