from typing import *


class Solution:
    def getLucky(self, s: str, k: int) -> int:
        digits = ''.join(str(ord(c) - 96) for c in s)
        for _ in range(k):
            digits = str(sum(int(d) for d in digits))
        return int(digits)
