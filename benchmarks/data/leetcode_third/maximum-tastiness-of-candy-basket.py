from typing import *
from bisect import bisect_left


class Solution:
    def maximumTastiness(self, price: List[int], k: int) -> int:
        p = sorted(price)
        n = len(p)

        def ok(d):
            idx = 0
            for _ in range(k - 1):
                idx = bisect_left(p, p[idx] + d, idx + 1)
                if idx >= n:
                    return False
            return True

        lo, hi = 0, (p[-1] - p[0]) // (k - 1)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if ok(mid):
                lo = mid
            else:
                hi = mid - 1
        return lo
