from typing import *
import re
from fractions import Fraction


class Solution:
    def fractionAddition(self, expression: str) -> str:
        total = Fraction(0)
        for num, den in re.findall(r'([+-]?\d+)/(\d+)', expression):
            total += Fraction(int(num), int(den))
        return f"{total.numerator}/{total.denominator}"
