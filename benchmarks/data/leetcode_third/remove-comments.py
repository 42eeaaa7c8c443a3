from typing import *


class Solution:
    def removeComments(self, source: List[str]) -> List[str]:
        res = []
        buf = []
        in_block = False
        for line in source:
            i = 0
            L = len(line)
            while i < L:
                if in_block:
                    if line[i] == "*" and i + 1 < L and line[i + 1] == "/":
                        in_block = False
                        i += 2
                    else:
                        i += 1
                else:
                    if line[i] == "/" and i + 1 < L and line[i + 1] == "*":
                        in_block = True
                        i += 2
                    elif line[i] == "/" and i + 1 < L and line[i + 1] == "/":
                        break
                    else:
                        buf.append(line[i])
                        i += 1
            if not in_block and buf:
                res.append("".join(buf))
                buf = []
        return res
