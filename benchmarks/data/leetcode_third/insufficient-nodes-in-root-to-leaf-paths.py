from typing import *
from collections import deque

try:
    TreeNode
except NameError:
    class TreeNode:
        def __init__(self, val=0, left=None, right=None):
            self.val = val
            self.left = left
            self.right = right

    def tree_node(values):
        if not values or values[0] is None:
            return None
        root = TreeNode(values[0])
        q = deque([root])
        i = 1
        while q and i < len(values):
            node = q.popleft()
            if i < len(values) and values[i] is not None:
                node.left = TreeNode(values[i])
                q.append(node.left)
            i += 1
            if i < len(values) and values[i] is not None:
                node.right = TreeNode(values[i])
                q.append(node.right)
            i += 1
        return root

    def is_same_tree(p, q):
        if p is None or q is None:
            return p is q
        return p.val == q.val and is_same_tree(p.left, q.left) and is_same_tree(p.right, q.right)


class Solution:
    def sufficientSubset(self, root: "Optional[TreeNode]", limit: int) -> "Optional[TreeNode]":
        def prune(node, acc):
            if node is None:
                return None
            acc += node.val
            if node.left is None and node.right is None:
                return node if acc >= limit else None
            node.left = prune(node.left, acc)
            node.right = prune(node.right, acc)
            if node.left is None and node.right is None:
                return None
            return node

        return prune(root, 0)
