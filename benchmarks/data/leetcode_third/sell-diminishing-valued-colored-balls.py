from typing import *


class Solution:
    def maxProfit(self, inventory: List[int], orders: int) -> int:
        MOD = 10 ** 9 + 7
        lo, hi = 0, max(inventory)
        while lo < hi:
            mid = (lo + hi) // 2
            c = 0
            for a in inventory:
                if a > mid:
                    c += a - mid
            if c <= orders:
                hi = mid
            else:
                lo = mid + 1
        t = lo
        total = 0
        sold = 0
        for a in inventory:
            if a > t:
                total += (a + t + 1) * (a - t) // 2
                sold += a - t
        total += (orders - sold) * t
        return total % MOD
