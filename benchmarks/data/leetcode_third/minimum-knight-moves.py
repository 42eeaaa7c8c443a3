from typing import *
from collections import deque


class Solution:
    def minKnightMoves(self, x: int, y: int) -> int:
        x, y = abs(x), abs(y)
        if x == 0 and y == 0:
            return 0
        lim = max(x, y) + 3
        seen = {(0, 0)}
        q = deque([(0, 0, 0)])
        moves = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))
        while q:
            a, b, d = q.popleft()
            for da, db in moves:
                na, nb = a + da, b + db
                if na == x and nb == y:
                    return d + 1
                if -3 <= na <= lim and -3 <= nb <= lim and (na, nb) not in seen:
                    seen.add((na, nb))
                    q.append((na, nb, d + 1))
        return -1
