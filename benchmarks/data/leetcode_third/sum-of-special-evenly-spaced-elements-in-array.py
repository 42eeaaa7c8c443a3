from typing import *
from collections import defaultdict
from itertools import accumulate


class Solution:
    def solve(self, nums: List[int], queries: List[List[int]]) -> List[int]:
        MOD = 10**9 + 7
        n = len(nums)
        groups = defaultdict(list)
        for qi, (x, y) in enumerate(queries):
            groups[(y, x % y)].append(qi)
        ans = [0] * len(queries)
        for (y, r), qis in groups.items():
            length = (n - r + y - 1) // y
            direct = 0
            for qi in qis:
                direct += (n - queries[qi][0] + y - 1) // y
            if direct > length * 3:
                P = list(accumulate(nums[r::y]))
                total = P[-1]
                for qi in qis:
                    idx = (queries[qi][0] - r) // y
                    ans[qi] = (total - (P[idx - 1] if idx else 0)) % MOD
            else:
                for qi in qis:
                    ans[qi] = sum(nums[queries[qi][0]::y]) % MOD
        return ans
