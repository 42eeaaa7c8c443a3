from typing import *


class Solution:
    def maximumGain(self, s: str, x: int, y: int) -> int:
        if x >= y:
            first, second, hi, lo = 'ab', 'ba', x, y
        else:
            first, second, hi, lo = 'ba', 'ab', y, x

        def strip(text, pair, pts):
            st = []
            gained = 0
            for ch in text:
                if st and st[-1] == pair[0] and ch == pair[1]:
                    st.pop()
                    gained += pts
                else:
                    st.append(ch)
            return st, gained

        rest, g1 = strip(s, first, hi)
        _, g2 = strip(rest, second, lo)
        return g1 + g2
