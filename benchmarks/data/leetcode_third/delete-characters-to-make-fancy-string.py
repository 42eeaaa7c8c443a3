from typing import *


class Solution:
    def makeFancyString(self, s: str) -> str:
        out = []
        for c in s:
            if len(out) >= 2 and out[-1] == c and out[-2] == c:
                continue
            out.append(c)
        return "".join(out)
