from typing import *


class Solution:
    def restoreIpAddresses(self, s: str) -> List[str]:
        n = len(s)
        out = []
        parts = []

        def go(i):
            if len(parts) == 4:
                if i == n:
                    out.append(".".join(parts))
                return
            rem = 4 - len(parts)
            if n - i < rem or n - i > 3 * rem:
                return
            for L in range(1, 4):
                if i + L > n:
                    break
                seg = s[i:i + L]
                if L > 1 and seg[0] == "0":
                    break
                if int(seg) > 255:
                    break
                parts.append(seg)
                go(i + L)
                parts.pop()

        go(0)
        return out
