from typing import *


class Solution:
    def minNumberOfHours(self, initialEnergy: int, initialExperience: int, energy: List[int], experience: List[int]) -> int:
        hours = max(0, sum(energy) + 1 - initialEnergy)
        exp = initialExperience
        for e in experience:
            if exp <= e:
                hours += e + 1 - exp
                exp = e + 1
            exp += e
        return hours
