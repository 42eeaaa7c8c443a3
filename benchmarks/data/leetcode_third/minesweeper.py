from typing import *
from collections import deque


class Solution:
    def updateBoard(self, board: List[List[str]], click: List[int]) -> List[List[str]]:
        m, n = len(board), len(board[0])
        r, c = click
        if board[r][c] == "M":
            board[r][c] = "X"
            return board
        if board[r][c] != "E":
            return board
        nbrs = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
        q = deque([(r, c)])
        board[r][c] = "B"
        while q:
            i, j = q.popleft()
            mines = 0
            for di, dj in nbrs:
                x, y = i + di, j + dj
                if 0 <= x < m and 0 <= y < n and board[x][y] in ("M", "X"):
                    mines += 1
            if mines:
                board[i][j] = str(mines)
                continue
            board[i][j] = "B"
            for di, dj in nbrs:
                x, y = i + di, j + dj
                if 0 <= x < m and 0 <= y < n and board[x][y] == "E":
                    board[x][y] = "B"
                    q.append((x, y))
        return board
