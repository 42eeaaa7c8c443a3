from typing import *


class Solution:
    def sumGame(self, num: str) -> bool:
        half = len(num) // 2
        diff = 0
        ql = qr = 0
        for i, ch in enumerate(num):
            if ch == '?':
                if i < half:
                    ql += 1
                else:
                    qr += 1
            else:
                diff += int(ch) if i < half else -int(ch)
        if (ql + qr) % 2:
            return True
        return diff * 2 != 9 * (qr - ql)
