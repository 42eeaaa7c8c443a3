from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def masterMind(self, solution: str, guess: str) -> List[int]:
        hits = sum(1 for a, b in zip(solution, guess) if a == b)
        common = sum((Counter(solution) & Counter(guess)).values())
        return [hits, common - hits]
