from typing import *
from collections import defaultdict


class Solution:
    def splitPainting(self, segments: List[List[int]]) -> List[List[int]]:
        delta = defaultdict(int)
        for s, e, c in segments:
            delta[s] += c
            delta[e] -= c
        res = []
        cur = 0
        prev = None
        for x in sorted(delta):
            if prev is not None and cur > 0:
                res.append([prev, x, cur])
            cur += delta[x]
            prev = x
        return res
