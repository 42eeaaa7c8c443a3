from typing import *
from bisect import bisect_left


class Solution:
    def smallerNumbersThanCurrent(self, nums: List[int]) -> List[int]:
        s = sorted(nums)
        return [bisect_left(s, v) for v in nums]
