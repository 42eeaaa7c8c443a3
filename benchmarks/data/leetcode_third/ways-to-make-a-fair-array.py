from typing import *


class Solution:
    def waysToMakeFair(self, nums: List[int]) -> int:
        tot_even = sum(nums[0::2])
        tot_odd = sum(nums[1::2])
        pe = po = 0
        res = 0
        for i, x in enumerate(nums):
            if i % 2 == 0:
                se = tot_even - pe - x
                so = tot_odd - po
            else:
                se = tot_even - pe
                so = tot_odd - po - x
            if pe + so == po + se:
                res += 1
            if i % 2 == 0:
                pe += x
            else:
                po += x
        return res
