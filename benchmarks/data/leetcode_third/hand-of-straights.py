from typing import *
from collections import Counter


class Solution:
    def isNStraightHand(self, hand: List[int], groupSize: int) -> bool:
        if len(hand) % groupSize:
            return False
        cnt = Counter(hand)
        for v in sorted(cnt):
            c = cnt[v]
            if c == 0:
                continue
            for w in range(v, v + groupSize):
                if cnt[w] < c:
                    return False
                cnt[w] -= c
        return True
