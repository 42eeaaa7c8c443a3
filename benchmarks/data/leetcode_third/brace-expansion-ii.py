from typing import *


class Solution:
    def braceExpansionII(self, expression: str) -> List[str]:
        s = expression
        pos = 0

        def parse_union():
            nonlocal pos
            result = parse_concat()
            while pos < len(s) and s[pos] == ",":
                pos += 1
                result = result | parse_concat()
            return result

        def parse_concat():
            nonlocal pos
            result = {""}
            while pos < len(s) and s[pos] not in ",}":
                if s[pos] == "{":
                    pos += 1
                    part = parse_union()
                    pos += 1
                else:
                    part = {s[pos]}
                    pos += 1
                result = {a + b for a in result for b in part}
            return result

        return sorted(parse_union())
