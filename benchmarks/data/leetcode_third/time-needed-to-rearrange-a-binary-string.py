from typing import *


class Solution:
    def secondsToRemoveOccurrences(self, s: str) -> int:
        zeros = 0
        t = 0
        for ch in s:
            if ch == '0':
                zeros += 1
            elif zeros:
                t = max(t + 1, zeros)
        return t
