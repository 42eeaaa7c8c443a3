from typing import *


class Solution:
    def numOfBurgers(self, tomatoSlices: int, cheeseSlices: int) -> List[int]:
        rest = tomatoSlices - 2 * cheeseSlices
        if rest < 0 or rest % 2:
            return []
        jumbo = rest // 2
        small = cheeseSlices - jumbo
        if small < 0:
            return []
        return [jumbo, small]
