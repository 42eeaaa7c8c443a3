from typing import *


class Solution:
    def isBalanced(self, root: Optional[TreeNode]) -> bool:
        if root is None:
            return True
        order = []
        stack = [root]
        while stack:
            node = stack.pop()
            order.append(node)
            if node.left:
                stack.append(node.left)
            if node.right:
                stack.append(node.right)
        height = {id(None): 0}
        for node in reversed(order):
            lh = height[id(node.left)]
            rh = height[id(node.right)]
            if abs(lh - rh) > 1:
                return False
            height[id(node)] = max(lh, rh) + 1
        return True
