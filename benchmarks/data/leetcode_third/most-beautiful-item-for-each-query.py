from typing import *
from bisect import bisect_right


class Solution:
    def maximumBeauty(self, items: List[List[int]], queries: List[int]) -> List[int]:
        items = sorted(items)
        prices = [p for p, _ in items]
        best = []
        m = 0
        for _, b in items:
            if b > m:
                m = b
            best.append(m)
        res = []
        for q in queries:
            i = bisect_right(prices, q)
            res.append(best[i - 1] if i else 0)
        return res
