from typing import *


class Solution:
    def reverse(self, x: int) -> int:
        sign = -1 if x < 0 else 1
        r = int(str(abs(x))[::-1]) * sign
        if r < -2**31 or r > 2**31 - 1:
            return 0
        return r
