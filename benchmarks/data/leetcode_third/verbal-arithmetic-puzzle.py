from typing import *


class Solution:
    def isSolvable(self, words: List[str], result: str) -> bool:
        L = len(result)
        if any(len(w) > L for w in words):
            return False
        nonzero = set()
        for w in words + [result]:
            if len(w) > 1:
                nonzero.add(w[0])
        cols = []
        for c in range(L):
            cols.append([w[len(w) - 1 - c] for w in words if len(w) > c])
        val = {}
        used = [False] * 10

        def dfs(col, i, s):
            if col == L:
                return s == 0
            letters = cols[col]
            if i < len(letters):
                ch = letters[i]
                if ch in val:
                    return dfs(col, i + 1, s + val[ch])
                lo = 1 if ch in nonzero else 0
                for d in range(lo, 10):
                    if not used[d]:
                        used[d] = True
                        val[ch] = d
                        if dfs(col, i + 1, s + d):
                            return True
                        del val[ch]
                        used[d] = False
                return False
            r = result[L - 1 - col]
            digit = s % 10
            carry = s // 10
            if r in val:
                return val[r] == digit and dfs(col + 1, 0, carry)
            if used[digit] or (digit == 0 and r in nonzero):
                return False
            used[digit] = True
            val[r] = digit
            if dfs(col + 1, 0, carry):
                return True
            del val[r]
            used[digit] = False
            return False

        return dfs(0, 0, 0)
