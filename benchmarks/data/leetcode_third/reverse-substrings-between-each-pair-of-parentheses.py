from typing import *


class Solution:
    def reverseParentheses(self, s: str) -> str:
        n = len(s)
        pair = [0] * n
        st = []
        for i, ch in enumerate(s):
            if ch == '(':
                st.append(i)
            elif ch == ')':
                j = st.pop()
                pair[i] = j
                pair[j] = i
        out = []
        i, step = 0, 1
        while 0 <= i < n:
            ch = s[i]
            if ch == '(' or ch == ')':
                i = pair[i]
                step = -step
            else:
                out.append(ch)
            i += step
        return ''.join(out)
