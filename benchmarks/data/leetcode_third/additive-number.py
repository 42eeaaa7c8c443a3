from typing import *


class Solution:
    def isAdditiveNumber(self, num: str) -> bool:
        n = len(num)

        def ok(a: str, b: str, rest: int) -> bool:
            x, y = int(a), int(b)
            pos = rest
            while pos < n:
                z = str(x + y)
                if not num.startswith(z, pos):
                    return False
                pos += len(z)
                x, y = y, x + y
            return True

        for i in range(1, n):
            if num[0] == "0" and i > 1:
                break
            for j in range(i + 1, n):
                if num[i] == "0" and j - i > 1:
                    break
                if max(i, j - i) > n - j:
                    break
                if ok(num[:i], num[i:j], j):
                    return True
        return False
