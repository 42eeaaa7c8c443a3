from typing import *


class Solution:
    def printBin(self, num: float) -> str:
        out = "0."
        while num > 0 and len(out) < 32:
            num *= 2
            if num >= 1:
                out += "1"
                num -= 1
            else:
                out += "0"
        return "ERROR" if num > 0 else out
