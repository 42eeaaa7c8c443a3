from typing import *


class Solution:
    def checkPartitioning(self, s: str) -> bool:
        n = len(s)
        pal = [bytearray(n + 1) for _ in range(n + 1)]
        for c in range(2 * n - 1):
            l = c // 2
            r = l + (c & 1)
            while l >= 0 and r < n and s[l] == s[r]:
                pal[l][r + 1] = 1
                l -= 1
                r += 1
        pre = [i for i in range(1, n) if pal[0][i]]
        suf = [j for j in range(1, n) if pal[j][n]]
        for i in pre:
            row = pal[i]
            for j in suf:
                if j > i and row[j]:
                    return True
        return False
