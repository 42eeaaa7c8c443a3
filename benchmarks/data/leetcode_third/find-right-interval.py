from typing import *
from bisect import bisect_left


class Solution:
    def findRightInterval(self, intervals: List[List[int]]) -> List[int]:
        starts = sorted((iv[0], i) for i, iv in enumerate(intervals))
        keys = [s for s, _ in starts]
        res = []
        for s, e in intervals:
            p = bisect_left(keys, e)
            res.append(starts[p][1] if p < len(keys) else -1)
        return res
