from typing import *


class Solution:
    def shortestSuperstring(self, words: List[str]) -> str:
        n = len(words)
        ov = [[0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                a, b = words[i], words[j]
                for k in range(min(len(a), len(b)), 0, -1):
                    if a.endswith(b[:k]):
                        ov[i][j] = k
                        break
        full = (1 << n) - 1
        best = [[0] * n for _ in range(full + 1)]
        for mask in range(full - 1, 0, -1):
            rest = full ^ mask
            row = best[mask]
            for cur in range(n):
                if not mask >> cur & 1:
                    continue
                v = -1
                oc = ov[cur]
                r = rest
                while r:
                    low = r & -r
                    nxt = low.bit_length() - 1
                    cand = oc[nxt] + best[mask | low][nxt]
                    if cand > v:
                        v = cand
                    r ^= low
                row[cur] = v
        start = 0
        for i in range(n):
            if best[1 << i][i] > best[1 << start][start]:
                start = i
        order = [start]
        mask = 1 << start
        cur = start
        while mask != full:
            target = best[mask][cur]
            for nxt in range(n):
                if not mask >> nxt & 1 and ov[cur][nxt] + best[mask | 1 << nxt][nxt] == target:
                    break
            order.append(nxt)
            mask |= 1 << nxt
            cur = nxt
        res = words[order[0]]
        for a, b in zip(order, order[1:]):
            res += words[b][ov[a][b]:]
        return res
