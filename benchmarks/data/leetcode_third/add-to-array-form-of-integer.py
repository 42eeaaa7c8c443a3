from typing import *


class Solution:
    def addToArrayForm(self, num: List[int], k: int) -> List[int]:
        res = []
        i = len(num) - 1
        carry = k
        while i >= 0 or carry:
            if i >= 0:
                carry += num[i]
                i -= 1
            carry, d = divmod(carry, 10)
            res.append(d)
        res.reverse()
        return res
