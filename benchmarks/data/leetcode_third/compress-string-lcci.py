from typing import *
from itertools import groupby


class Solution:
    def compressString(self, S: str) -> str:
        out = ''.join(ch + str(len(list(g))) for ch, g in groupby(S))
        return out if len(out) < len(S) else S
