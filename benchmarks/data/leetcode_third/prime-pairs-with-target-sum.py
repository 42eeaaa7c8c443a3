from typing import *


class Solution:
    def findPrimePairs(self, n: int) -> List[List[int]]:
        if n < 4:
            return []
        sieve = bytearray([1]) * (n + 1)
        sieve[0] = sieve[1] = 0
        i = 2
        while i * i <= n:
            if sieve[i]:
                sieve[i * i::i] = bytearray(len(range(i * i, n + 1, i)))
            i += 1
        res = []
        for x in range(2, n // 2 + 1):
            if sieve[x] and sieve[n - x]:
                res.append([x, n - x])
        return res
