from typing import *


class Solution:
    def numSub(self, s: str) -> int:
        res = 0
        run = 0
        for c in s:
            if c == "1":
                run += 1
                res += run
            else:
                run = 0
        return res % (10**9 + 7)
