from typing import *


class Solution:
    def similarRGB(self, color: str) -> str:
        out = ["#"]
        for k in range(1, 7, 2):
            v = int(color[k:k + 2], 16)
            best = min(range(16), key=lambda d: abs(d * 17 - v))
            out.append("0123456789abcdef"[best] * 2)
        return "".join(out)
