from typing import *


class Solution:
    def shortestWordDistance(self, wordsDict: List[str], word1: str, word2: str) -> int:
        best = len(wordsDict)
        if word1 == word2:
            prev = -1
            for i, w in enumerate(wordsDict):
                if w == word1:
                    if prev >= 0:
                        best = min(best, i - prev)
                    prev = i
            return best
        p1 = p2 = -1
        for i, w in enumerate(wordsDict):
            if w == word1:
                p1 = i
                if p2 >= 0:
                    best = min(best, i - p2)
            elif w == word2:
                p2 = i
                if p1 >= 0:
                    best = min(best, i - p1)
        return best
