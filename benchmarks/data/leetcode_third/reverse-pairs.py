from typing import *


class Solution:
    def reversePairs(self, nums: List[int]) -> int:
        def sort_count(arr):
            if len(arr) <= 1:
                return arr, 0
            m = len(arr) // 2
            left, a = sort_count(arr[:m])
            right, b = sort_count(arr[m:])
            cnt = a + b
            j = 0
            for x in left:
                while j < len(right) and x > 2 * right[j]:
                    j += 1
                cnt += j
            merged = []
            i = k = 0
            while i < len(left) and k < len(right):
                if left[i] <= right[k]:
                    merged.append(left[i]); i += 1
                else:
                    merged.append(right[k]); k += 1
            merged.extend(left[i:])
            merged.extend(right[k:])
            return merged, cnt
        return sort_count(list(nums))[1]
