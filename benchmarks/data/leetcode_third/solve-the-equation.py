from typing import *
import re


class Solution:
    def solveEquation(self, equation: str) -> str:
        def parse(side):
            coef = 0
            const = 0
            for sign, num, x in re.findall(r'([+-]?)(\d*)(x?)', side):
                if not num and not x:
                    continue
                mult = -1 if sign == '-' else 1
                if x:
                    coef += mult * (int(num) if num else 1)
                else:
                    const += mult * int(num)
            return coef, const

        left, right = equation.split('=')
        a1, b1 = parse(left)
        a2, b2 = parse(right)
        a = a1 - a2
        b = b2 - b1
        if a == 0:
            return "Infinite solutions" if b == 0 else "No solution"
        return "x=" + str(b // a)
