from typing import *


class Solution:
    def minOperationsMaxProfit(self, customers: List[int], boardingCost: int, runningCost: int) -> int:
        waiting = 0
        profit = 0
        best, ans = 0, -1
        rot = 0
        for c in customers:
            waiting += c
            board = min(4, waiting)
            waiting -= board
            rot += 1
            profit += board * boardingCost - runningCost
            if profit > best:
                best, ans = profit, rot
        full, rest = divmod(waiting, 4)
        gain = 4 * boardingCost - runningCost
        if full and gain > 0:
            profit += full * gain
            rot += full
            if profit > best:
                best, ans = profit, rot
        else:
            profit += full * gain
            rot += full
        if rest:
            profit += rest * boardingCost - runningCost
            rot += 1
            if profit > best:
                best, ans = profit, rot
        return ans
