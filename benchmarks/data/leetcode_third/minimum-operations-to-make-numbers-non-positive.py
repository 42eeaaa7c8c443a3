from typing import *


class Solution:
    def minOperations(self, nums: List[int], x: int, y: int) -> int:
        d = x - y

        def ok(t):
            need = 0
            base = t * y
            for a in nums:
                r = a - base
                if r > 0:
                    need += (r + d - 1) // d
                    if need > t:
                        return False
            return True

        lo, hi = 0, max(nums) // y + 1 if y > 0 else max(nums)
        hi = max(hi, 0)
        while lo < hi:
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo
