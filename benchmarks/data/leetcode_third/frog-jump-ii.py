from typing import *


class Solution:
    def maxJump(self, stones: List[int]) -> int:
        best = stones[1] - stones[0]
        for i in range(2, len(stones)):
            best = max(best, stones[i] - stones[i - 2])
        return best
