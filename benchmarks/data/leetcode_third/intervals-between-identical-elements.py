from typing import *
from collections import defaultdict


class Solution:
    def getDistances(self, arr: List[int]) -> List[int]:
        groups = defaultdict(list)
        for i, v in enumerate(arr):
            groups[v].append(i)
        res = [0] * len(arr)
        for idxs in groups.values():
            total = sum(idxs)
            m = len(idxs)
            prefix = 0
            for k, i in enumerate(idxs):
                left = i * k - prefix
                right = (total - prefix - i) - i * (m - k - 1)
                res[i] = left + right
                prefix += i
        return res
