from typing import *


class Solution:
    def amountPainted(self, paint: List[List[int]]) -> List[int]:
        top = max(e for _, e in paint)
        nxt = list(range(top + 2))
        res = []
        for s, e in paint:
            cnt = 0
            x = s
            path = []
            while True:
                while nxt[x] != x:
                    path.append(x)
                    x = nxt[x]
                if x >= e:
                    break
                cnt += 1
                nxt[x] = x + 1
                path.append(x)
                x += 1
            for p in path:
                nxt[p] = x
            res.append(cnt)
        return res
