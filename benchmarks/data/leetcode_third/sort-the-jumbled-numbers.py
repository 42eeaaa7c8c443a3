from typing import *


class Solution:
    def sortJumbled(self, mapping: List[int], nums: List[int]) -> List[int]:
        def mapped(x):
            return int(''.join(str(mapping[int(d)]) for d in str(x)))
        return sorted(nums, key=mapped)
