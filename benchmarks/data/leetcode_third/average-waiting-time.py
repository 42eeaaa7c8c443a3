from typing import *


class Solution:
    def averageWaitingTime(self, customers: List[List[int]]) -> float:
        t = 0
        total = 0
        for arrive, need in customers:
            t = max(t, arrive) + need
            total += t - arrive
        return total / len(customers)
