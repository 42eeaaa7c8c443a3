from typing import *


class Solution:
    def evaluate(self, expression: str) -> int:
        tokens = expression.replace('(', ' ( ').replace(')', ' ) ').split()
        pos = 0
        scopes = [{}]

        def lookup(name):
            for sc in reversed(scopes):
                if name in sc:
                    return sc[name]
            raise KeyError(name)

        def atom(tok):
            if tok[0] == '-' or tok[0].isdigit():
                return int(tok)
            return lookup(tok)

        def ev():
            nonlocal pos
            tok = tokens[pos]
            if tok != '(':
                pos += 1
                return atom(tok)
            pos += 1
            op = tokens[pos]
            pos += 1
            if op == 'add' or op == 'mult':
                a = ev()
                b = ev()
                pos += 1
                return a + b if op == 'add' else a * b
            scopes.append({})
            while True:
                tok = tokens[pos]
                if tok == '(':
                    val = ev()
                    break
                nxt = tokens[pos + 1]
                if nxt == ')':
                    pos += 1
                    val = atom(tok)
                    break
                pos += 1
                scopes[-1][tok] = ev()
            pos += 1
            scopes.pop()
            return val

        return ev()
