from typing import *


class Solution:
    def getPermutation(self, n: int, k: int) -> str:
        fact = [1] * (n + 1)
        for i in range(1, n + 1):
            fact[i] = fact[i - 1] * i
        avail = [str(i) for i in range(1, n + 1)]
        k -= 1
        out = []
        for i in range(n, 0, -1):
            idx, k = divmod(k, fact[i - 1])
            out.append(avail.pop(idx))
        return ''.join(out)
