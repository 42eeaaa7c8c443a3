from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def pathSum(self, root: "Optional[TreeNode]", targetSum: int) -> List[List[int]]:
        res = []
        if root is None:
            return res
        path = []
        stack = [(root, 0, False)]
        while stack:
            node, acc, done = stack.pop()
            if done:
                path.pop()
                continue
            acc += node.val
            path.append(node.val)
            stack.append((node, acc, True))
            if node.left is None and node.right is None:
                if acc == targetSum:
                    res.append(path[:])
                continue
            if node.right is not None:
                stack.append((node.right, acc, False))
            if node.left is not None:
                stack.append((node.left, acc, False))
        return res
