from typing import *


class Solution:
    def getStrongest(self, arr: List[int], k: int) -> List[int]:
        a = sorted(arr)
        m = a[(len(a) - 1) // 2]
        res = []
        i, j = 0, len(a) - 1
        while len(res) < k:
            if a[j] - m >= m - a[i]:
                res.append(a[j])
                j -= 1
            else:
                res.append(a[i])
                i += 1
        return res
