from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def maskPII(self, s: str) -> str:
        if '@' in s:
            s = s.lower()
            name, domain = s.split('@', 1)
            return name[0] + '*****' + name[-1] + '@' + domain
        digits = [c for c in s if c.isdigit()]
        local = '***-***-' + ''.join(digits[-4:])
        cc = len(digits) - 10
        if cc == 0:
            return local
        return '+' + '*' * cc + '-' + local
