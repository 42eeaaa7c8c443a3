from typing import *


class Solution:
    def countSmaller(self, nums: List[int]) -> List[int]:
        ranks = {v: i + 1 for i, v in enumerate(sorted(set(nums)))}
        size = len(ranks)
        tree = [0] * (size + 1)
        res = [0] * len(nums)
        for idx in range(len(nums) - 1, -1, -1):
            r = ranks[nums[idx]]
            j = r - 1
            total = 0
            while j > 0:
                total += tree[j]
                j -= j & -j
            res[idx] = total
            j = r
            while j <= size:
                tree[j] += 1
                j += j & -j
        return res
