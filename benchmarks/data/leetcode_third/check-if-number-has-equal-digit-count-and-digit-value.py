from typing import *
from collections import Counter


class Solution:
    def digitCount(self, num: str) -> bool:
        c = Counter(num)
        return all(c[str(i)] == int(ch) for i, ch in enumerate(num))
