"""Integers longer than CPython's default 4,300-digit text limit, within a bound.

Python 3.11 refuses int/str conversion past 4,300 digits; APPS and TACO records, and programs'
answers, hold longer ones. Conversion is quadratic in the digits (0.03 s at this bound, 3 s at a
million), hence a bound rather than none where codemix itself parses (records, programs' results).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["BIG_INT_DIGITS", "big_ints"]

#: The longest integer codemix parses from a record's JSON or a program's result.
BIG_INT_DIGITS = 100_000


@contextmanager
def big_ints() -> Iterator[None]:
    """Inside the block, int/str conversion (json.loads/dumps) handles up to BIG_INT_DIGITS digits."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(max(old, BIG_INT_DIGITS) if old else 0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)
