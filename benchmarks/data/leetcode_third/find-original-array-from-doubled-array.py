from typing import *
from collections import Counter


class Solution:
    def findOriginalArray(self, changed: List[int]) -> List[int]:
        if len(changed) % 2:
            return []
        cnt = Counter(changed)
        res = []
        for v in sorted(cnt):
            c = cnt[v]
            if c == 0:
                continue
            if v == 0:
                if c % 2:
                    return []
                res.extend([0] * (c // 2))
                continue
            if cnt.get(2 * v, 0) < c:
                return []
            cnt[2 * v] -= c
            res.extend([v] * c)
        return res
