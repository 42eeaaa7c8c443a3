from typing import *


class Solution:
    def carFleet(self, target: int, position: List[int], speed: List[int]) -> int:
        cars = sorted(zip(position, speed), reverse=True)
        fleets = 0
        slowest = None
        for p, s in cars:
            d, v = target - p, s
            if slowest is None or d * slowest[1] > slowest[0] * v:
                fleets += 1
                slowest = (d, v)
        return fleets
