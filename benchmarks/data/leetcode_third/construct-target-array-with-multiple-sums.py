from typing import *
import heapq


class Solution:
    def isPossible(self, target: List[int]) -> bool:
        if len(target) == 1:
            return target[0] == 1
        total = sum(target)
        h = [-x for x in target]
        heapq.heapify(h)
        while True:
            mx = -h[0]
            if mx == 1:
                return True
            rest = total - mx
            if rest == 1:
                return True
            if mx <= rest:
                return False
            nv = mx % rest
            if nv == 0:
                return False
            heapq.heapreplace(h, -nv)
            total = rest + nv
