from typing import *
from collections import defaultdict


class Solution:
    def countPairs(self, deliciousness: List[int]) -> int:
        seen = defaultdict(int)
        powers = [1 << p for p in range(22)]
        res = 0
        for x in deliciousness:
            for p in powers:
                need = p - x
                if need >= 0:
                    res += seen.get(need, 0)
            seen[x] += 1
        return res % (10 ** 9 + 7)
