from typing import *


class Solution:
    def sumSubseqWidths(self, nums: List[int]) -> int:
        MOD = 10**9 + 7
        a = sorted(nums)
        n = len(a)
        pw = [1] * n
        for i in range(1, n):
            pw[i] = pw[i - 1] * 2 % MOD
        res = 0
        for i, x in enumerate(a):
            res += x * (pw[i] - pw[n - 1 - i])
        return res % MOD
