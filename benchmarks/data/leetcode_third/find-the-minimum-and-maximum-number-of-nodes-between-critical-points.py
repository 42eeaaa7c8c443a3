from typing import *


class Solution:
    def nodesBetweenCriticalPoints(self, head: Optional[ListNode]) -> List[int]:
        first = last = -1
        min_gap = float('inf')
        prev = head
        cur = head.next if head else None
        i = 1
        while cur is not None and cur.next is not None:
            nxt = cur.next
            if (cur.val > prev.val and cur.val > nxt.val) or (cur.val < prev.val and cur.val < nxt.val):
                if first == -1:
                    first = i
                else:
                    min_gap = min(min_gap, i - last)
                last = i
            prev, cur = cur, nxt
            i += 1
        if first == -1 or first == last:
            return [-1, -1]
        return [min_gap, last - first]
