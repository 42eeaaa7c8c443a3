from typing import *


class Solution:
    def vowelStrings(self, words: List[str], queries: List[List[int]]) -> List[int]:
        v = set("aeiou")
        pre = [0]
        for w in words:
            pre.append(pre[-1] + (1 if w[0] in v and w[-1] in v else 0))
        return [pre[r + 1] - pre[l] for l, r in queries]
