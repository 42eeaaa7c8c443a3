from typing import *


class Solution:
    def canTraverseAllPairs(self, nums: List[int]) -> bool:
        n = len(nums)
        if n == 1:
            return True
        if 1 in nums:
            return False
        mx = max(nums)
        spf = list(range(mx + 1))
        i = 2
        while i * i <= mx:
            if spf[i] == i:
                for j in range(i * i, mx + 1, i):
                    if spf[j] == j:
                        spf[j] = i
            i += 1
        parent = list(range(n + mx + 1))

        def find(x):
            root = x
            while parent[root] != root:
                root = parent[root]
            while parent[x] != root:
                parent[x], x = root, parent[x]
            return root

        for idx, v in enumerate(nums):
            while v > 1:
                p = spf[v]
                ra, rb = find(idx), find(n + p)
                if ra != rb:
                    parent[ra] = rb
                while v % p == 0:
                    v //= p
        r = find(0)
        return all(find(i) == r for i in range(1, n))
