from typing import *
import re


class Solution:
    def numDifferentIntegers(self, word: str) -> int:
        return len({t.lstrip('0') for t in re.findall(r'[0-9]+', word)})
