from typing import *


class Solution:
    def replaceDigits(self, s: str) -> str:
        out = list(s)
        for i in range(1, len(s), 2):
            out[i] = chr(ord(s[i - 1]) + int(s[i]))
        return ''.join(out)
