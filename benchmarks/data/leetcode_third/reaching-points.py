from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def reachingPoints(self, sx: int, sy: int, tx: int, ty: int) -> bool:
        while tx >= sx and ty >= sy:
            if tx == sx and ty == sy:
                return True
            if tx > ty:
                if ty == sy:
                    return tx >= sx and (tx - sx) % ty == 0
                tx %= ty
            elif ty > tx:
                if tx == sx:
                    return ty >= sy and (ty - sy) % tx == 0
                ty %= tx
            else:
                return False
        return False
