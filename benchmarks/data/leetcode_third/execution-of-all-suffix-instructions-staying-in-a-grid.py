from typing import *


class Solution:
    def executeInstructions(self, n: int, startPos: List[int], s: str) -> List[int]:
        moves = {'L': (0, -1), 'R': (0, 1), 'U': (-1, 0), 'D': (1, 0)}
        m = len(s)
        ans = []
        for i in range(m):
            r, c = startPos
            cnt = 0
            for k in range(i, m):
                dr, dc = moves[s[k]]
                r += dr
                c += dc
                if not (0 <= r < n and 0 <= c < n):
                    break
                cnt += 1
            ans.append(cnt)
        return ans
