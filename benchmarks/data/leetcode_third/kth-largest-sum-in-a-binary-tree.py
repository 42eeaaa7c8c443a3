from typing import *


class Solution:
    def kthLargestLevelSum(self, root: Optional[TreeNode], k: int) -> int:
        sums = []
        level = [root] if root else []
        while level:
            sums.append(sum(x.val for x in level))
            nxt = []
            for x in level:
                if x.left:
                    nxt.append(x.left)
                if x.right:
                    nxt.append(x.right)
            level = nxt
        if len(sums) < k:
            return -1
        sums.sort(reverse=True)
        return sums[k - 1]
