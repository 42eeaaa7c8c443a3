from typing import *
from collections import defaultdict


class Solution:
    def averageHeightOfBuildings(self, buildings: List[List[int]]) -> List[List[int]]:
        dh = defaultdict(int)
        dc = defaultdict(int)
        for s, e, h in buildings:
            dh[s] += h
            dh[e] -= h
            dc[s] += 1
            dc[e] -= 1
        res = []
        height = cnt = 0
        prev = None
        for x in sorted(dh.keys() | dc.keys()):
            if cnt > 0 and prev is not None:
                avg = height // cnt
                if res and res[-1][1] == prev and res[-1][2] == avg:
                    res[-1][1] = x
                else:
                    res.append([prev, x, avg])
            height += dh[x]
            cnt += dc[x]
            prev = x
        return res
