from typing import *


class Solution:
    def sumOfPower(self, nums: List[int]) -> int:
        MOD = 10**9 + 7
        a = sorted(nums)
        res = 0
        acc = 0
        for x in a:
            sq = x * x % MOD
            res = (res + sq * (acc + x)) % MOD
            acc = (2 * acc + x) % MOD
        return res
