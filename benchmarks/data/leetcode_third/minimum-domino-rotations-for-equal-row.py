from typing import *


class Solution:
    def minDominoRotations(self, tops: List[int], bottoms: List[int]) -> int:
        n = len(tops)
        best = -1
        for v in {tops[0], bottoms[0]}:
            rt = rb = 0
            ok = True
            for a, b in zip(tops, bottoms):
                if a != v and b != v:
                    ok = False
                    break
                if a != v:
                    rt += 1
                if b != v:
                    rb += 1
            if ok:
                c = min(rt, rb)
                if best < 0 or c < best:
                    best = c
        return best
