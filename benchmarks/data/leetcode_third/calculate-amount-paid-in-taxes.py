from typing import *


class Solution:
    def calculateTax(self, brackets: List[List[int]], income: int) -> float:
        total = 0
        prev = 0
        for upper, pct in brackets:
            if income <= prev:
                break
            amt = min(income, upper) - prev
            total += amt * pct
            prev = upper
        return total / 100
