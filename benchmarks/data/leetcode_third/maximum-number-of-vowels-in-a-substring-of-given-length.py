from typing import *


class Solution:
    def maxVowels(self, s: str, k: int) -> int:
        vow = set('aeiou')
        cur = sum(1 for ch in s[:k] if ch in vow)
        best = cur
        for i in range(k, len(s)):
            cur += (s[i] in vow) - (s[i - k] in vow)
            if cur > best:
                best = cur
        return best
