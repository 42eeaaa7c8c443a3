from typing import *


class Solution:
    def minDistance(self, word1: str, word2: str) -> int:
        m = len(word2)
        prev = [0] * (m + 1)
        for c in word1:
            cur = [0] * (m + 1)
            for j in range(m):
                if word2[j] == c:
                    cur[j + 1] = prev[j] + 1
                else:
                    a, b = prev[j + 1], cur[j]
                    cur[j + 1] = a if a > b else b
            prev = cur
        return len(word1) + m - 2 * prev[m]
