from typing import *


class Solution:
    def canMakeSubsequence(self, str1: str, str2: str) -> bool:
        j = 0
        m = len(str2)
        if m == 0:
            return True
        for c in str1:
            d = str2[j]
            if c == d or (ord(c) - ord("a") + 1) % 26 == ord(d) - ord("a"):
                j += 1
                if j == m:
                    return True
        return False
