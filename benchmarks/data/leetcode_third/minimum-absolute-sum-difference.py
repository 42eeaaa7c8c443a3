from typing import *
import bisect


class Solution:
    def minAbsoluteSumDiff(self, nums1: List[int], nums2: List[int]) -> int:
        srt = sorted(nums1)
        total = 0
        gain = 0
        m = len(srt)
        for a, b in zip(nums1, nums2):
            d = abs(a - b)
            total += d
            if d == 0:
                continue
            i = bisect.bisect_left(srt, b)
            best = d
            if i < m:
                best = min(best, srt[i] - b)
            if i > 0:
                best = min(best, b - srt[i - 1])
            if d - best > gain:
                gain = d - best
        return (total - gain) % (10 ** 9 + 7)
