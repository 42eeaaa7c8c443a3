"""Strict output comparison: exact tokens, float tolerance only where the expected token is a decimal.

A peer's comparator accepted "YES" for "NO" because it skipped tokens that were not floats; here a
token that is not a decimal number must match exactly, and integers always match exactly.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from filters.bigints import big_ints

__all__ = ["DEFAULT_TOLERANCE", "compare_stdio", "compare_call", "explain_stdio", "values_equal"]

DEFAULT_TOLERANCE = 1e-6
_DECIMAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][+-]?\d+)?")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _lines(text: str) -> list[str]:
    lines = [ln.rstrip() for ln in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol or abs(a - b) <= tol * abs(b)


def _token_ok(exp: str, act: str, tol: float) -> bool:
    if exp == act:
        return True
    if _DECIMAL.fullmatch(exp) and _NUMBER.fullmatch(act):
        e, a = float(exp), float(act)
        return math.isfinite(e) and math.isfinite(a) and _close(a, e, tol)
    return False


def explain_stdio(expected: str, actual: str, tol: float = DEFAULT_TOLERANCE) -> str | None:
    """None when `actual` is accepted, else where it first differs (line, token)."""
    exp, act = _lines(expected), _lines(actual)
    for i in range(max(len(exp), len(act))):
        if i >= len(act):
            return f"line {i + 1}: output ends, expected {exp[i][:80]!r}"
        if i >= len(exp):
            return f"line {i + 1}: extra output {act[i][:80]!r}"
        et, at = exp[i].split(), act[i].split()
        for j in range(max(len(et), len(at))):
            if j >= len(et) or j >= len(at) or not _token_ok(et[j], at[j], tol):
                e = et[j] if j < len(et) else "<end of line>"
                a = at[j] if j < len(at) else "<end of line>"
                return f"line {i + 1} token {j + 1}: expected {e[:40]!r}, got {a[:40]!r}"
    return None


def compare_stdio(expected: str, actual: str, tol: float = DEFAULT_TOLERANCE) -> bool:
    """Line by line, tokens split on whitespace; trailing whitespace and blank lines ignored."""
    return explain_stdio(expected, actual, tol) is None


def values_equal(expected: Any, actual: Any, tol: float = DEFAULT_TOLERANCE) -> bool:
    """Structural equality of JSON values (tuples as lists); float tolerance where expected is a float."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if isinstance(expected, float):
            if math.isnan(expected) or math.isnan(actual):
                return math.isnan(expected) and math.isnan(actual)
            if math.isinf(expected) or math.isinf(actual):
                return expected == actual
            return _close(float(actual), expected, tol)
        return expected == actual
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(expected) == len(actual) and all(
            values_equal(e, a, tol) for e, a in zip(expected, actual)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(
            values_equal(expected[k], actual[k], tol) for k in expected
        )
    return type(expected) is type(actual) and expected == actual


def compare_call(expected_json: str, actual_json: str, tol: float = DEFAULT_TOLERANCE) -> bool:
    """Compare a `call` test's expected return value with the program's, both JSON text."""
    try:
        with big_ints():  # a 5,000-digit answer is an answer (past BIG_INT_DIGITS: not accepted)
            expected = json.loads(expected_json)
            actual = json.loads(actual_json)
    except (TypeError, ValueError):
        return False
    return values_equal(expected, actual, tol)
