from typing import *


class Solution:
    def minimumOperations(self, nums: List[int]) -> int:
        return len({v for v in nums if v > 0})
