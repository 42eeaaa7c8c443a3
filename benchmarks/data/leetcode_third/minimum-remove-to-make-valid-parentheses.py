from typing import *


class Solution:
    def minRemoveToMakeValid(self, s: str) -> str:
        keep = [True] * len(s)
        opens = []
        for i, c in enumerate(s):
            if c == '(':
                opens.append(i)
            elif c == ')':
                if opens:
                    opens.pop()
                else:
                    keep[i] = False
        for i in opens:
            keep[i] = False
        return ''.join(c for c, k in zip(s, keep) if k)
