from typing import *


class Solution:
    def smallestSubsequence(self, s: str) -> str:
        last = {c: i for i, c in enumerate(s)}
        stack = []
        inside = set()
        for i, c in enumerate(s):
            if c in inside:
                continue
            while stack and stack[-1] > c and last[stack[-1]] > i:
                inside.discard(stack.pop())
            stack.append(c)
            inside.add(c)
        return "".join(stack)
