from typing import *


class Solution:
    def beautySum(self, s: str) -> int:
        codes = [ord(c) - 97 for c in s]
        n = len(codes)
        total = 0
        for i in range(n):
            cnt = [0] * 26
            hi = 0
            for j in range(i, n):
                c = codes[j]
                cnt[c] += 1
                if cnt[c] > hi:
                    hi = cnt[c]
                lo = min(x for x in cnt if x)
                total += hi - lo
        return total
