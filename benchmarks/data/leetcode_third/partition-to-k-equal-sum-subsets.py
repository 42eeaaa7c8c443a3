from typing import *


class Solution:
    def canPartitionKSubsets(self, nums: List[int], k: int) -> bool:
        total = sum(nums)
        if k <= 0 or total % k:
            return False
        target = total // k
        a = sorted(nums, reverse=True)
        if a and a[0] > target:
            return False
        n = len(a)
        full = (1 << n) - 1
        rem = [-1] * (1 << n)
        rem[0] = 0
        for mask in range(1 << n):
            r = rem[mask]
            if r < 0:
                continue
            for i in range(n):
                bit = 1 << i
                if mask & bit:
                    continue
                nr = r + a[i]
                if nr > target:
                    continue
                nm = mask | bit
                if rem[nm] < 0:
                    rem[nm] = 0 if nr == target else nr
        return rem[full] == 0
