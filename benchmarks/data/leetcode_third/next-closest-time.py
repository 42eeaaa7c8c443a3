from typing import *


class Solution:
    def nextClosestTime(self, time: str) -> str:
        digits = set(time.replace(':', ''))
        cur = int(time[:2]) * 60 + int(time[3:])
        for step in range(1, 24 * 60 + 1):
            t = (cur + step) % (24 * 60)
            s = "%02d:%02d" % (t // 60, t % 60)
            if set(s.replace(':', '')) <= digits:
                return s
        return time
