from typing import *


class Solution:
    def getMinSwaps(self, num: str, k: int) -> int:
        a = list(num)
        n = len(a)
        for _ in range(k):
            i = n - 2
            while i >= 0 and a[i] >= a[i + 1]:
                i -= 1
            j = n - 1
            while a[j] <= a[i]:
                j -= 1
            a[i], a[j] = a[j], a[i]
            a[i + 1:] = a[i + 1:][::-1]
        src = list(num)
        swaps = 0
        for i in range(n):
            if src[i] != a[i]:
                j = i + 1
                while src[j] != a[i]:
                    j += 1
                swaps += j - i
                src[i:j + 1] = [src[j]] + src[i:j]
        return swaps
