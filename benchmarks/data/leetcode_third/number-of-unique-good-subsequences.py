from typing import *


class Solution:
    def numberOfUniqueGoodSubsequences(self, binary: str) -> int:
        MOD = 10 ** 9 + 7
        e0 = e1 = 0
        zero = 0
        for ch in binary:
            if ch == '1':
                e1 = (e0 + e1 + 1) % MOD
            else:
                e0 = (e0 + e1) % MOD
                zero = 1
        return (e0 + e1 + zero) % MOD
