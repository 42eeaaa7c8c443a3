from typing import *


class Solution:
    def numSteps(self, s: str) -> int:
        steps = 0
        carry = 0
        for ch in reversed(s[1:]):
            bit = int(ch) + carry
            if bit == 1:
                steps += 2
                carry = 1
            else:
                steps += 1
        return steps + carry
