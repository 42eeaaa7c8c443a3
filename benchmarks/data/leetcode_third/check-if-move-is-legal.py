from typing import *


class Solution:
    def checkMove(self, board: List[List[str]], rMove: int, cMove: int, color: str) -> bool:
        other = "B" if color == "W" else "W"
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr == 0 and dc == 0:
                    continue
                r, c = rMove + dr, cMove + dc
                steps = 0
                while 0 <= r < 8 and 0 <= c < 8 and board[r][c] == other:
                    r += dr
                    c += dc
                    steps += 1
                if steps >= 1 and 0 <= r < 8 and 0 <= c < 8 and board[r][c] == color:
                    return True
        return False
