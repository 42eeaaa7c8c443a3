from typing import *


class Solution:
    def countTime(self, time: str) -> int:
        def fits(pattern, value):
            s = "%02d" % value
            return all(p == '?' or p == c for p, c in zip(pattern, s))

        hours = sum(1 for h in range(24) if fits(time[:2], h))
        minutes = sum(1 for m in range(60) if fits(time[3:], m))
        return hours * minutes
