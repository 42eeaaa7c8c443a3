from typing import *


class Solution:
    def timeRequiredToBuy(self, tickets: List[int], k: int) -> int:
        t = tickets[k]
        return sum(min(x, t) if i <= k else min(x, t - 1) for i, x in enumerate(tickets))
