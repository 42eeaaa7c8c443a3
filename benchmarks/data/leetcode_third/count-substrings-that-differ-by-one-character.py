from typing import *


class Solution:
    def countSubstrings(self, s: str, t: str) -> int:
        m, n = len(s), len(t)
        res = 0
        for shift in range(-(m - 1), n):
            i = max(0, -shift)
            j = i + shift
            same_before = 0
            cur = 0
            while i < m and j < n:
                if s[i] == t[j]:
                    same_before += 1
                else:
                    cur = same_before + 1
                    same_before = 0
                res += cur
                i += 1
                j += 1
        return res
