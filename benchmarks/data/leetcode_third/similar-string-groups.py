from typing import *


class Solution:
    def numSimilarGroups(self, strs: List[str]) -> int:
        words = list(dict.fromkeys(strs))
        n = len(words)
        parent = list(range(n))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def similar(a, b):
            diff = 0
            for x, y in zip(a, b):
                if x != y:
                    diff += 1
                    if diff > 2:
                        return False
            return True

        groups = n
        for i in range(n):
            for j in range(i + 1, n):
                ri, rj = find(i), find(j)
                if ri != rj and similar(words[i], words[j]):
                    parent[ri] = rj
                    groups -= 1
        return groups
