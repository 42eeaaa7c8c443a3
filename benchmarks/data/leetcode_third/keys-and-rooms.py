from typing import *


class Solution:
    def canVisitAllRooms(self, rooms: List[List[int]]) -> bool:
        seen = [False] * len(rooms)
        seen[0] = True
        stack = [0]
        count = 1
        while stack:
            r = stack.pop()
            for k in rooms[r]:
                if not seen[k]:
                    seen[k] = True
                    count += 1
                    stack.append(k)
        return count == len(rooms)
