from typing import *


class Solution:
    def zigzagLevelOrder(self, root: Optional[TreeNode]) -> List[List[int]]:
        res = []
        level = [root] if root else []
        flip = False
        while level:
            vals = [n.val for n in level]
            res.append(vals[::-1] if flip else vals)
            flip = not flip
            nxt = []
            for n in level:
                if n.left:
                    nxt.append(n.left)
                if n.right:
                    nxt.append(n.right)
            level = nxt
        return res
