from typing import *


class Solution:
    def getMaxRepetitions(self, s1: str, n1: int, s2: str, n2: int) -> int:
        if not set(s2) <= set(s1):
            return 0
        m = len(s2)
        trans = []
        for start in range(m):
            j = start
            cnt = 0
            for c in s1:
                if c == s2[j]:
                    j += 1
                    if j == m:
                        j = 0
                        cnt += 1
            trans.append((j, cnt))
        seen = {}
        pos = 0
        total = 0
        counts = []
        k = 0
        while k < n1:
            if pos in seen:
                pk, ptotal = seen[pos]
                cycle_len = k - pk
                cycle_cnt = total - ptotal
                remaining = n1 - k
                total += (remaining // cycle_len) * cycle_cnt
                for _ in range(remaining % cycle_len):
                    pos, c = trans[pos]
                    total += c
                return total // n2
            seen[pos] = (k, total)
            pos, c = trans[pos]
            total += c
            k += 1
        return total // n2
