from typing import *
from array import array
from itertools import accumulate, islice


class Solution:
    def numberOfCombinations(self, num: str) -> int:
        MOD = 10**9 + 7
        n = len(num)
        if num[0] == '0':
            return 0
        Q = [None] * (n + 1)
        lcp = [0] * (n + 1)
        for s in range(n - 1, -1, -1):
            ch = num[s]
            nl = [0] * (s + 1)
            nl += [p + 1 if c == ch else 0 for c, p in zip(islice(num, s + 1, None), islice(lcp, s + 2, None))]
            nl.append(0)
            lcp = nl
            m = n - s
            if ch == '0':
                Q[s] = array('q', bytes(8 * (m + 2)))
                continue
            h = [0] * (m + 2)
            h[m] = 1
            for l in range(1, m // 2 + 1):
                t = s + l
                q = Q[t]
                c = lcp[t]
                if c < l and num[s + c] > num[t + c]:
                    h[l] = q[l + 1] % MOD
                else:
                    h[l] = q[l] % MOD
            sums = list(accumulate(reversed(h)))
            sums.reverse()
            Q[s] = array('q', sums)
        return Q[0][1] % MOD
