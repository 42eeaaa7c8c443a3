from typing import *


class Solution:
    def verticalTraversal(self, root: Optional[TreeNode]) -> List[List[int]]:
        items = []
        stack = [(root, 0, 0)] if root else []
        while stack:
            node, r, c = stack.pop()
            items.append((c, r, node.val))
            if node.left:
                stack.append((node.left, r + 1, c - 1))
            if node.right:
                stack.append((node.right, r + 1, c + 1))
        items.sort()
        res = []
        prev = None
        for c, r, v in items:
            if c != prev:
                res.append([])
                prev = c
            res[-1].append(v)
        return res
