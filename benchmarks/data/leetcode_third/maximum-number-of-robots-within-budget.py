from typing import *
from collections import deque


class Solution:
    def maximumRobots(self, chargeTimes: List[int], runningCosts: List[int], budget: int) -> int:
        dq = deque()
        left = 0
        total = 0
        best = 0
        for right in range(len(chargeTimes)):
            c = chargeTimes[right]
            while dq and chargeTimes[dq[-1]] <= c:
                dq.pop()
            dq.append(right)
            total += runningCosts[right]
            while dq and chargeTimes[dq[0]] + (right - left + 1) * total > budget:
                total -= runningCosts[left]
                if dq[0] == left:
                    dq.popleft()
                left += 1
            if right - left + 1 > best:
                best = right - left + 1
        return best
