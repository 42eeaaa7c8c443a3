from typing import *


class Solution:
    def substringXorQueries(self, s: str, queries: List[List[int]]) -> List[List[int]]:
        n = len(s)
        pos = {}
        for i in range(n):
            if s[i] == '0':
                if 0 not in pos:
                    pos[0] = [i, i]
                continue
            v = 0
            for j in range(i, min(n, i + 31)):
                v = (v << 1) | (s[j] == '1')
                if v not in pos:
                    pos[v] = [i, j]
        res = []
        for a, b in queries:
            p = pos.get(a ^ b)
            res.append(list(p) if p else [-1, -1])
        return res
