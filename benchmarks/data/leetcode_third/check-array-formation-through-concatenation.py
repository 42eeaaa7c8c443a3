from typing import *


class Solution:
    def canFormArray(self, arr: List[int], pieces: List[List[int]]) -> bool:
        first = {p[0]: p for p in pieces}
        i = 0
        n = len(arr)
        while i < n:
            p = first.get(arr[i])
            if p is None or arr[i:i + len(p)] != p:
                return False
            i += len(p)
        return True
