from typing import *


class Solution:
    def partition(self, s: str) -> List[List[str]]:
        n = len(s)
        pal = [[False] * (n + 1) for _ in range(n + 1)]
        for i in range(n - 1, -1, -1):
            for j in range(i + 1, n + 1):
                if s[i] == s[j - 1] and (j - i <= 2 or pal[i + 1][j - 1]):
                    pal[i][j] = True
        res = []
        cur = []

        def go(i):
            if i == n:
                res.append(cur[:])
                return
            for j in range(i + 1, n + 1):
                if pal[i][j]:
                    cur.append(s[i:j])
                    go(j)
                    cur.pop()

        go(0)
        return res
