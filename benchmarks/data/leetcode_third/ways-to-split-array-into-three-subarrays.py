from typing import *
from bisect import bisect_left, bisect_right


class Solution:
    def waysToSplit(self, nums: List[int]) -> int:
        MOD = 10 ** 9 + 7
        n = len(nums)
        pre = [0] * (n + 1)
        for i, v in enumerate(nums):
            pre[i + 1] = pre[i] + v
        total = pre[n]
        ans = 0
        for i in range(1, n - 1):
            left = pre[i]
            if 3 * left > total:
                break
            lo = bisect_left(pre, 2 * left, i + 1, n)
            hi = bisect_right(pre, (total + left) // 2, i + 1, n)
            if hi > lo:
                ans += hi - lo
        return ans % MOD
