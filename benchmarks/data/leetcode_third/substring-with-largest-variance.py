from typing import *
from collections import defaultdict


class Solution:
    def largestVariance(self, s: str) -> int:
        pos = defaultdict(list)
        for i, c in enumerate(s):
            pos[c].append(i)
        chars = list(pos)
        best = 0
        NEG = float('-inf')
        for a in chars:
            pa = pos[a]
            for b in chars:
                if a == b:
                    continue
                pb = pos[b]
                seq = []
                i = j = 0
                while i < len(pa) or j < len(pb):
                    if j == len(pb) or (i < len(pa) and pa[i] < pb[j]):
                        seq.append(1)
                        i += 1
                    else:
                        seq.append(-1)
                        j += 1
                cur = NEG
                with_b = NEG
                for x in seq:
                    base = cur if cur > 0 else 0
                    if x == 1:
                        cur = base + 1
                        with_b += 1
                    else:
                        cur = base - 1
                        with_b = cur
                    if with_b > best:
                        best = with_b
        return best
