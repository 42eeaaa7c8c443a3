from typing import *


class Solution:
    def findPermutation(self, s: str) -> List[int]:
        n = len(s) + 1
        res = list(range(1, n + 1))
        i = 0
        while i < n - 1:
            if s[i] == 'D':
                j = i
                while j < n - 1 and s[j] == 'D':
                    j += 1
                res[i:j + 1] = res[i:j + 1][::-1]
                i = j
            else:
                i += 1
        return res
