from typing import *


class Solution:
    def makeSimilar(self, nums: List[int], target: List[int]) -> int:
        total = 0
        for p in (0, 1):
            a = sorted(x for x in nums if x % 2 == p)
            b = sorted(x for x in target if x % 2 == p)
            for x, y in zip(a, b):
                if x > y:
                    total += x - y
        return total // 2
