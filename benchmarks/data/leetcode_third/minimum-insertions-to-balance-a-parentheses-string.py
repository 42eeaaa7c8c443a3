from typing import *


class Solution:
    def minInsertions(self, s: str) -> int:
        ins = 0
        open_ = 0
        i, n = 0, len(s)
        while i < n:
            if s[i] == '(':
                open_ += 1
                i += 1
            else:
                if i + 1 < n and s[i + 1] == ')':
                    i += 2
                else:
                    ins += 1
                    i += 1
                if open_:
                    open_ -= 1
                else:
                    ins += 1
        return ins + 2 * open_
