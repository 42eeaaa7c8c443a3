from typing import *


class Solution:
    def countDistinctStrings(self, s: str, k: int) -> int:
        return (1 << (len(s) - k + 1)) % (10 ** 9 + 7)
