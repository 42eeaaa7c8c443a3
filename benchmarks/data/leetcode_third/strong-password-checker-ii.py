from typing import *


class Solution:
    def strongPasswordCheckerII(self, password: str) -> bool:
        p = password
        if len(p) < 8:
            return False
        if not any(c.islower() for c in p):
            return False
        if not any(c.isupper() for c in p):
            return False
        if not any(c.isdigit() for c in p):
            return False
        if not any(c in "!@#$%^&*()-+" for c in p):
            return False
        return all(p[i] != p[i + 1] for i in range(len(p) - 1))
