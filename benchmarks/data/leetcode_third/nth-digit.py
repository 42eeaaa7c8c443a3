from typing import *


class Solution:
    def findNthDigit(self, n: int) -> int:
        length, count, first = 1, 9, 1
        while n > length * count:
            n -= length * count
            length += 1
            count *= 10
            first *= 10
        num = first + (n - 1) // length
        return int(str(num)[(n - 1) % length])
