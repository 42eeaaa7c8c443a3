from typing import *


class Solution:
    def minSwapsCouples(self, row: List[int]) -> int:
        row = list(row)
        pos = {p: i for i, p in enumerate(row)}
        swaps = 0
        for i in range(0, len(row), 2):
            want = row[i] ^ 1
            if row[i + 1] != want:
                j = pos[want]
                other = row[i + 1]
                row[i + 1], row[j] = want, other
                pos[want] = i + 1
                pos[other] = j
                swaps += 1
        return swaps
