from typing import *


class Solution:
    def minimalKSum(self, nums: List[int], k: int) -> int:
        limit = k
        for x in sorted(set(nums)):
            if x <= limit:
                limit += 1
            else:
                break
        return limit * (limit + 1) // 2 - sum(x for x in set(nums) if x <= limit)
