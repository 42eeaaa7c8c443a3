from typing import *


class Solution:
    def isCircularSentence(self, sentence: str) -> bool:
        w = sentence.split(' ')
        return all(w[i][-1] == w[(i + 1) % len(w)][0] for i in range(len(w)))
