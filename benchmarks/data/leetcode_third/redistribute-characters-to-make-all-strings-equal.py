from typing import *
from collections import Counter


class Solution:
    def makeEqual(self, words: List[str]) -> bool:
        n = len(words)
        cnt = Counter()
        for w in words:
            cnt.update(w)
        return all(v % n == 0 for v in cnt.values())
