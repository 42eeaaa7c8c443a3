from typing import *


class Solution:
    def reorderLogFiles(self, logs: List[str]) -> List[str]:
        letters = []
        digits = []
        for log in logs:
            ident, rest = log.split(" ", 1)
            if rest[0].isdigit():
                digits.append(log)
            else:
                letters.append((rest, ident, log))
        letters.sort(key=lambda t: (t[0], t[1]))
        return [t[2] for t in letters] + digits
