from typing import *
import re

_PAT = re.compile(r'[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?')


class Solution:
    def isNumber(self, s: str) -> bool:
        return _PAT.fullmatch(s) is not None
