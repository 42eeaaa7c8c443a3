from typing import *
import math
import heapq
import bisect
from collections import Counter, defaultdict, deque
from functools import lru_cache

class Solution:
    def game(self, guess: List[int], answer: List[int]) -> int:
        return sum(1 for a, b in zip(guess, answer) if a == b)
