from typing import *
from collections import deque


class Solution:
    def catMouseGame(self, graph: List[List[int]]) -> int:
        n = len(graph)
        MOUSE, CAT = 0, 1
        result = [[[0, 0] for _ in range(n)] for _ in range(n)]
        degree = [[[0, 0] for _ in range(n)] for _ in range(n)]
        for m in range(n):
            for c in range(n):
                degree[m][c][MOUSE] = len(graph[m])
                degree[m][c][CAT] = sum(1 for x in graph[c] if x != 0)
        q = deque()
        for c in range(1, n):
            for t in (MOUSE, CAT):
                result[0][c][t] = 1
                q.append((0, c, t))
                result[c][c][t] = 2
                q.append((c, c, t))
        while q:
            m, c, t = q.popleft()
            r = result[m][c][t]
            if t == MOUSE:
                prev_t = CAT
                prevs = [(m, pc) for pc in graph[c] if pc != 0]
            else:
                prev_t = MOUSE
                prevs = [(pm, c) for pm in graph[m]]
            for pm, pc in prevs:
                if result[pm][pc][prev_t]:
                    continue
                if (prev_t == MOUSE and r == 1) or (prev_t == CAT and r == 2):
                    result[pm][pc][prev_t] = r
                    q.append((pm, pc, prev_t))
                else:
                    degree[pm][pc][prev_t] -= 1
                    if degree[pm][pc][prev_t] == 0:
                        result[pm][pc][prev_t] = r
                        q.append((pm, pc, prev_t))
        return result[1][2][MOUSE]
