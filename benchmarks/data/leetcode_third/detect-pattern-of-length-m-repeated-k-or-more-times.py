from typing import *


class Solution:
    def containsPattern(self, arr: List[int], m: int, k: int) -> bool:
        need = m * (k - 1)
        if need <= 0:
            return len(arr) >= m
        run = 0
        for i in range(len(arr) - m):
            if arr[i] == arr[i + m]:
                run += 1
                if run >= need:
                    return True
            else:
                run = 0
        return False
