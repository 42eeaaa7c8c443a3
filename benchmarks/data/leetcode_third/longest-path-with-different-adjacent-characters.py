from typing import *


class Solution:
    def longestPath(self, parent: List[int], s: str) -> int:
        n = len(parent)
        children = [[] for _ in range(n)]
        for i in range(1, n):
            children[parent[i]].append(i)
        order = [0]
        for v in order:
            order.extend(children[v])
        down = [1] * n
        best = 1
        top1 = [0] * n
        top2 = [0] * n
        for v in reversed(order):
            a, b = top1[v], top2[v]
            d = a + 1
            down[v] = d
            if a + b + 1 > best:
                best = a + b + 1
            p = parent[v]
            if p >= 0 and s[p] != s[v]:
                if d > top1[p]:
                    top2[p] = top1[p]
                    top1[p] = d
                elif d > top2[p]:
                    top2[p] = d
        return best
