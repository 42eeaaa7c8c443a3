from typing import *


class Solution:
    def restoreString(self, s: str, indices: List[int]) -> str:
        out = [''] * len(s)
        for ch, i in zip(s, indices):
            out[i] = ch
        return ''.join(out)
