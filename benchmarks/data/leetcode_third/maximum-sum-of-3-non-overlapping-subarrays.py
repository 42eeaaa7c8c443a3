from typing import *


class Solution:
    def maxSumOfThreeSubarrays(self, nums: List[int], k: int) -> List[int]:
        n = len(nums)
        m = n - k + 1
        w = [0] * m
        s = sum(nums[:k])
        w[0] = s
        for i in range(1, m):
            s += nums[i + k - 1] - nums[i - 1]
            w[i] = s
        left = [0] * m
        best = 0
        for i in range(m):
            if w[i] > w[best]:
                best = i
            left[i] = best
        right = [0] * m
        best = m - 1
        for i in range(m - 1, -1, -1):
            if w[i] >= w[best]:
                best = i
            right[i] = best
        ans = None
        top = -1
        for j in range(k, m - k):
            a, c = left[j - k], right[j + k]
            total = w[a] + w[j] + w[c]
            if total > top:
                top = total
                ans = [a, j, c]
        return ans
