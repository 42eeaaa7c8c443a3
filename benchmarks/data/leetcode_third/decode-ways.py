from typing import *


class Solution:
    def numDecodings(self, s: str) -> int:
        prev2, prev1 = 0, 1
        for i, ch in enumerate(s):
            cur = prev1 if ch != '0' else 0
            if i > 0 and (s[i - 1] == '1' or (s[i - 1] == '2' and ch <= '6')):
                cur += prev2 if i > 1 else 1
            prev2, prev1 = prev1, cur
        return prev1 if s else 0
