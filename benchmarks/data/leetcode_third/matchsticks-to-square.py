from typing import *


class Solution:
    def makesquare(self, matchsticks: List[int]) -> bool:
        total = sum(matchsticks)
        if len(matchsticks) < 4 or total % 4:
            return False
        side = total // 4
        sticks = sorted(matchsticks, reverse=True)
        if sticks[0] > side:
            return False
        sides = [0] * 4

        def dfs(i):
            if i == len(sticks):
                return True
            seen = set()
            for j in range(4):
                if sides[j] in seen:
                    continue
                if sides[j] + sticks[i] <= side:
                    seen.add(sides[j])
                    sides[j] += sticks[i]
                    if dfs(i + 1):
                        return True
                    sides[j] -= sticks[i]
            return False

        return dfs(0)
