from typing import *
from collections import Counter


class Solution:
    def minimumKeypresses(self, s: str) -> int:
        freqs = sorted(Counter(s).values(), reverse=True)
        return sum(f * (i // 9 + 1) for i, f in enumerate(freqs))
