from typing import *
from collections import Counter, defaultdict


class Solution:
    def minimumHammingDistance(self, source: List[int], target: List[int], allowedSwaps: List[List[int]]) -> int:
        n = len(source)
        par = list(range(n))

        def find(x):
            while par[x] != x:
                par[x] = par[par[x]]
                x = par[x]
            return x

        for a, b in allowedSwaps:
            ra, rb = find(a), find(b)
            if ra != rb:
                par[ra] = rb
        groups = defaultdict(Counter)
        for i in range(n):
            groups[find(i)][source[i]] += 1
        res = 0
        for i in range(n):
            c = groups[find(i)]
            if c[target[i]] > 0:
                c[target[i]] -= 1
            else:
                res += 1
        return res
