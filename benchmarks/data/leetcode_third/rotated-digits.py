from typing import *


class Solution:
    def rotatedDigits(self, n: int) -> int:
        bad = set('347')
        change = set('2569')
        cnt = 0
        for x in range(1, n + 1):
            s = set(str(x))
            if s & bad:
                continue
            if s & change:
                cnt += 1
        return cnt
