"""Output comparison: strict by default, judge-style only where a problem's recorded mode says so.

Strict: exact tokens, float tolerance only where the expected token is a decimal; integers always
match exactly. A peer's comparator accepted "YES" for "NO" because it skipped tokens that were not
floats; here a token that is not a decimal number must match exactly. A `Comparison` mode (detected
from a statement by `filters.judging.judge_style`, recorded per problem) widens this the way the problem's
judge does: every pair of numeric tokens within a stated absolute/relative error, YES/NO in
any letter case, (call tests) a returned list whose elements may come in any order, and (stdio from
contest judges, `tokens`) the same tokens with other line breaks. Nothing else is ever loosened.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from filters.tools.bigints import big_ints

__all__ = [
    "DEFAULT_TOLERANCE",
    "STRICT",
    "Comparison",
    "compare_stdio",
    "compare_call",
    "explain_stdio",
    "same_multiset",
    "values_equal",
]

DEFAULT_TOLERANCE = 1e-6
_DECIMAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][+-]?\d+)?")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


_YES_NO = ("yes", "no")


@dataclass(frozen=True)
class Comparison:
    """How a problem's outputs are compared; written as text in the record's `comparison` column.

    tolerance: the absolute/relative error the statement states; every pair of numeric tokens (an
        expected `1` against `1.0000000000` too) is equal within it. None: strict numbers.
    any_case: YES/NO tokens match in any letter case (the statement allows it).
    any_order: a call test's returned list matches the expected one as a multiset (the statement
        says the answer may be returned in any order); its elements are compared as always.
    tokens: a stdio output is the sequence of its whitespace-separated tokens, whatever the line
        breaks between them (a contest judge's token checker: Codeforces' default, testlib's
        `wcmp`); each token is compared as always. Otherwise lines are compared line by line.
    """

    tolerance: float | None = None
    any_case: bool = False
    any_order: bool = False
    tokens: bool = False

    @property
    def strict(self) -> bool:
        return (
            self.tolerance is None and not self.any_case and not self.any_order and not self.tokens
        )

    def __str__(self) -> str:
        parts = []
        if self.tolerance is not None:
            parts.append(f"tolerance={self.tolerance:g}")
        if self.any_case:
            parts.append("any_case")
        if self.any_order:
            parts.append("any_order")
        if self.tokens:
            parts.append("tokens")
        return ",".join(parts) or "strict"

    @staticmethod
    def parse(text: str | None) -> Comparison:
        """The mode from its text (`strict`, `tolerance=1e-06`, `any_case`, `any_order`, `tokens`,
        comma-joined); None is strict. ValueError for anything else."""
        if text is None:
            return STRICT
        if not isinstance(text, str):
            raise ValueError(f"comparison must be text, got {type(text).__name__}")
        return _parse(text)


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> Comparison:
    """`Comparison.parse` of a text, cached (a problem's mode is read once per test)."""
    if text == "strict":
        return STRICT
    tolerance: float | None = None
    any_case = any_order = tokens = False
    for part in str(text).split(","):
        key, _, value = part.strip().partition("=")
        if key == "any_case" and not value:
            any_case = True
        elif key == "any_order" and not value:
            any_order = True
        elif key == "tokens" and not value:
            tokens = True
        elif key == "tolerance" and value:
            try:
                tolerance = float(value)
            except ValueError:
                raise ValueError(f"comparison {text!r}: tolerance must be a number") from None
            if not (math.isfinite(tolerance) and 0 < tolerance < 1):
                raise ValueError(f"comparison {text!r}: tolerance must be in (0, 1)")
        else:
            raise ValueError(
                f"unknown comparison {text!r}; expected strict, tolerance=X, any_case, "
                "any_order, tokens, or several of them comma-joined (tolerance=X,any_case)"
            )
    return Comparison(tolerance, any_case, any_order, tokens)


STRICT = Comparison()


def _lines(text: str) -> list[str]:
    lines = [ln.rstrip() for ln in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol or abs(a - b) <= tol * abs(b)


def _token_ok(exp: str, act: str, tol: float, mode: Comparison) -> bool:
    if exp == act:
        return True
    if mode.tolerance is not None and _NUMBER.fullmatch(exp) and _NUMBER.fullmatch(act):
        e, a = float(exp), float(act)
        return math.isfinite(e) and math.isfinite(a) and _close(a, e, mode.tolerance)
    if _DECIMAL.fullmatch(exp) and _NUMBER.fullmatch(act):
        e, a = float(exp), float(act)
        return math.isfinite(e) and math.isfinite(a) and _close(a, e, tol)
    if mode.any_case and exp.lower() in _YES_NO:
        return act.lower() == exp.lower()
    return False


def explain_stdio(
    expected: str, actual: str, tol: float = DEFAULT_TOLERANCE, mode: Comparison = STRICT
) -> str | None:
    """None when `actual` is accepted, else where it first differs (line and token; with
    `mode.tokens`, the token's place in the whole output)."""
    if mode.tokens:
        return _explain_tokens(expected.split(), actual.split(), tol, mode)
    exp, act = _lines(expected), _lines(actual)
    for i in range(max(len(exp), len(act))):
        if i >= len(act):
            return f"line {i + 1}: output ends, expected {exp[i][:80]!r}"
        if i >= len(exp):
            return f"line {i + 1}: extra output {act[i][:80]!r}"
        et, at = exp[i].split(), act[i].split()
        for j in range(max(len(et), len(at))):
            if j >= len(et) or j >= len(at) or not _token_ok(et[j], at[j], tol, mode):
                e = et[j] if j < len(et) else "<end of line>"
                a = at[j] if j < len(at) else "<end of line>"
                return f"line {i + 1} token {j + 1}: expected {e[:40]!r}, got {a[:40]!r}"
    return None


def _explain_tokens(exp: list[str], act: list[str], tol: float, mode: Comparison) -> str | None:
    for j in range(max(len(exp), len(act))):
        if j >= len(act):
            return f"token {j + 1}: output ends, expected {exp[j][:40]!r}"
        if j >= len(exp):
            return f"token {j + 1}: extra output {act[j][:40]!r}"
        if not _token_ok(exp[j], act[j], tol, mode):
            return f"token {j + 1}: expected {exp[j][:40]!r}, got {act[j][:40]!r}"
    return None


def compare_stdio(
    expected: str, actual: str, tol: float = DEFAULT_TOLERANCE, mode: Comparison = STRICT
) -> bool:
    """Line by line, tokens split on whitespace; trailing whitespace and blank lines ignored
    (`mode.tokens`: the whole output's tokens in order, line breaks ignored too)."""
    return explain_stdio(expected, actual, tol, mode) is None


def values_equal(
    expected: Any, actual: Any, tol: float = DEFAULT_TOLERANCE, numeric: bool = False
) -> bool:
    """Structural equality of JSON values (tuples as lists); float tolerance where expected is a
    float (`numeric`: wherever either side is a float, as a stated error allows)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if isinstance(expected, float) or (numeric and isinstance(actual, float)):
            expected = float(expected)
            if math.isnan(expected) or math.isnan(actual):
                return math.isnan(expected) and math.isnan(actual)
            if math.isinf(expected) or math.isinf(actual):
                return expected == actual
            return _close(float(actual), expected, tol)
        return expected == actual
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(expected) == len(actual) and all(
            values_equal(e, a, tol, numeric) for e, a in zip(expected, actual)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(
            values_equal(expected[k], actual[k], tol, numeric) for k in expected
        )
    return type(expected) is type(actual) and expected == actual


def compare_call(
    expected_json: str, actual_json: str, tol: float = DEFAULT_TOLERANCE, mode: Comparison = STRICT
) -> bool:
    """Compare a `call` test's expected return value with the program's, both JSON text."""
    try:
        with big_ints():  # a 5,000-digit answer is an answer (past BIG_INT_DIGITS: not accepted)
            expected = json.loads(expected_json)
            actual = json.loads(actual_json)
    except (TypeError, ValueError):
        return False
    numeric = mode.tolerance is not None
    tol = mode.tolerance if mode.tolerance is not None else tol
    if mode.any_order and isinstance(expected, list) and isinstance(actual, list):
        return same_multiset(expected, actual, lambda e, a: values_equal(e, a, tol, numeric))
    return values_equal(expected, actual, tol, numeric)


def same_multiset(
    expected: list[Any], actual: list[Any], equal: Callable[[Any, Any], bool]
) -> bool:
    """Whether `actual` holds the elements of `expected`, each as often, in any order (`equal`
    compares two elements; a greedy match suffices as long as `equal` is an equivalence)."""
    if len(expected) != len(actual):
        return False
    left = list(actual)
    for e in expected:
        for i, a in enumerate(left):
            if equal(e, a):
                del left[i]
                break
        else:
            return False
    return True
