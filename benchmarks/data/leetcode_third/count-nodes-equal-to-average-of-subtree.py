from typing import *


class Solution:
    def averageOfSubtree(self, root: "Optional[TreeNode]") -> int:
        if root is None:
            return 0
        order = []
        stack = [root]
        while stack:
            node = stack.pop()
            order.append(node)
            if node.left is not None:
                stack.append(node.left)
            if node.right is not None:
                stack.append(node.right)
        info = {}
        count = 0
        for node in reversed(order):
            s, c = node.val, 1
            if node.left is not None:
                ls, lc = info[id(node.left)]
                s += ls
                c += lc
            if node.right is not None:
                rs, rc = info[id(node.right)]
                s += rs
                c += rc
            info[id(node)] = (s, c)
            if s // c == node.val:
                count += 1
        return count
