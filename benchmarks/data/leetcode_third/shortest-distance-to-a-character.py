from typing import *


class Solution:
    def shortestToChar(self, s: str, c: str) -> List[int]:
        n = len(s)
        res = [n] * n
        last = -n
        for i in range(n):
            if s[i] == c:
                last = i
            res[i] = i - last
        last = 2 * n
        for i in range(n - 1, -1, -1):
            if s[i] == c:
                last = i
            res[i] = min(res[i], last - i)
        return res
