from typing import *
from collections import defaultdict


class Solution:
    def countTriplets(self, arr: List[int]) -> int:
        cnt = defaultdict(int)
        idx_sum = defaultdict(int)
        cnt[0] = 1
        x = 0
        res = 0
        for p in range(1, len(arr) + 1):
            x ^= arr[p - 1]
            c = cnt[x]
            res += c * (p - 1) - idx_sum[x]
            cnt[x] = c + 1
            idx_sum[x] += p
        return res
