from typing import *


class Solution:
    def partition(self, head: Optional[ListNode], x: int) -> Optional[ListNode]:
        small = ListNode()
        big = ListNode()
        s, b = small, big
        cur = head
        while cur:
            nxt = cur.next
            cur.next = None
            if cur.val < x:
                s.next = cur
                s = cur
            else:
                b.next = cur
                b = cur
            cur = nxt
        s.next = big.next
        return small.next
