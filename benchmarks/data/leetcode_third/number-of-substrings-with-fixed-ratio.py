from typing import *
from collections import defaultdict


class Solution:
    def fixedRatio(self, s: str, num1: int, num2: int) -> int:
        cnt = defaultdict(int)
        key = 0
        cnt[0] = 1
        ans = 0
        for ch in s:
            if ch == '0':
                key += num2
            else:
                key -= num1
            ans += cnt[key]
            cnt[key] += 1
        return ans
