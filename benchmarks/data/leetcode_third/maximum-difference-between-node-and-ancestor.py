from typing import *


class Solution:
    def maxAncestorDiff(self, root: Optional[TreeNode]) -> int:
        best = 0
        stack = [(root, root.val, root.val)]
        while stack:
            node, lo, hi = stack.pop()
            lo = min(lo, node.val)
            hi = max(hi, node.val)
            best = max(best, hi - lo)
            for ch in (node.left, node.right):
                if ch:
                    stack.append((ch, lo, hi))
        return best
