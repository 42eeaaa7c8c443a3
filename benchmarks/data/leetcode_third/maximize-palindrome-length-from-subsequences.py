from typing import *


class Solution:
    def longestPalindrome(self, word1: str, word2: str) -> int:
        s = word1 + word2
        n = len(s)
        n1 = len(word1)
        best = 0
        dp = [0] * n
        for i in range(n - 1, -1, -1):
            new = [0] * n
            new[i] = 1
            ci = s[i]
            for j in range(i + 1, n):
                if s[j] == ci:
                    v = dp[j - 1] + 2
                    new[j] = v
                    if i < n1 <= j and v > best:
                        best = v
                else:
                    a, b = dp[j], new[j - 1]
                    new[j] = a if a > b else b
            dp = new
        return best
