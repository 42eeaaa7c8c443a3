"""Which of testlib's standard checkers explains the references' disagreement (issue 54).

When no reference passes a problem without a checker and they fail by wrong answers only, verify
collects every such reference's output on every test and asks, strictest first, which standard
checker accepts each of them against the test's answer and against each other's output
(`choose`). The answer is only a candidate: verify then judges the problem again with the
compiled testlib checker itself, and the checker must accept every reference there too.

The candidates, strictest first, and what each needs of the evidence:

- `wcmp`: the same tokens (whitespace only);
- `yesno` / `nyesno`: every answer token is YES or NO, and they match in any case;
- `rcmp9`, `rcmp6`, `rcmp4`: every answer token is a number and one at least is written with a
  decimal point or an exponent (a real-valued answer: integers far apart never pass for close
  by a relative error); numbers within 1e-9, 1e-6, 1e-4 (absolute or relative, as testlib's
  `doubleCompare`), never looser than the error the statement states where it states one;
- `uncmp`: integers, the same multiset, only when the statement says the order is free and every
  answer is a list (one line of integers, or one integer a line, after an optional count line):
  on rows of several integers (edges, pairs) a multiset of all of them would accept other rows.

The emulation here is what decides between candidates; testlib's compiled checker has the last
word when verify judges the problem again.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

__all__ = ["CANDIDATES", "choose", "accepts"]

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_REAL = re.compile(r"[.eE]")
_INT = re.compile(r"[+-]?\d+")
_ANY_ORDER = re.compile(r"\bany order\b|\barbitrary order\b|\border does not matter\b", re.I)
#: the standard checkers verify may choose, strictest first
CANDIDATES = ("wcmp", "yesno", "nyesno", "rcmp9", "rcmp6", "rcmp4", "uncmp")
_EPS = {"rcmp9": 1e-9, "rcmp6": 1e-6, "rcmp4": 1e-4}


def _double_compare(expected: float, result: float, eps: float) -> bool:
    """testlib's `doubleCompare`: absolute or relative error within eps."""
    if math.isnan(expected) or math.isnan(result):
        return math.isnan(expected) and math.isnan(result)
    if math.isinf(expected) or math.isinf(result):
        return expected == result
    if abs(result - expected) <= eps + 1e-15:
        return True
    lo, hi = sorted((expected * (1.0 - eps), expected * (1.0 + eps)))
    return result + 1e-15 >= lo and result <= hi + 1e-15


def _numbers(tokens: list[str]) -> list[float] | None:
    if not all(_NUMBER.fullmatch(t) for t in tokens):
        return None
    return [float(t) for t in tokens]


def accepts(name: str, answer: str, output: str) -> bool:
    """Whether the standard checker `name` accepts `output` against `answer` (an emulation of
    the candidates above; False where testlib's would FAIL on the answer)."""
    ans, out = answer.split(), output.split()
    if name == "wcmp":
        return ans == out
    if name in ("yesno", "nyesno"):
        up = [t.upper() for t in ans]
        if not up or any(t not in ("YES", "NO") for t in up) or (name == "yesno" and len(up) != 1):
            return False
        return len(out) == len(up) and [t.upper() for t in out] == up
    if name in _EPS:
        a, o = _numbers(ans), _numbers(out)
        if a is None or o is None or len(a) != len(o):
            return False
        return all(_double_compare(x, y, _EPS[name]) for x, y in zip(a, o))
    if name == "uncmp":
        if not all(_INT.fullmatch(t) for t in ans + out):
            return False
        return sorted(map(int, ans)) == sorted(map(int, out))
    raise ValueError(f"not a candidate: {name}")


def _allowed(name: str, answers: Sequence[str], stated: float | None, statement: str) -> bool:
    """Whether the evidence lets `name` be considered at all."""
    if name in _EPS:
        if stated is not None and _EPS[name] > stated * (1 + 1e-9):
            return False  # looser than the statement allows
        return any(_REAL.search(t) for a in answers for t in a.split() if _NUMBER.fullmatch(t))
    if name == "uncmp":
        return bool(_ANY_ORDER.search(statement or "")) and all(map(_a_list, answers))
    return True


def _a_list(answer: str) -> bool:
    """One line of integers, or one integer a line, after an optional line with one count."""
    lines = [ln.split() for ln in answer.strip().splitlines() if ln.strip()]
    if len(lines) > 1 and len(lines[0]) == 1:
        lines = lines[1:]
    return len(lines) == 1 or all(len(ln) == 1 for ln in lines)


def choose(
    answers: Sequence[str],
    outputs: Sequence[Sequence[str]],
    stated_tolerance: float | None = None,
    statement: str | None = None,
    candidates: Sequence[str] = CANDIDATES,
) -> tuple[str, str] | None:
    """(the strictest candidate under which every reference's output (`outputs[k][i]` on test
    i) agrees with every test's answer and with every other reference's output, why), or None
    when none does."""
    if not outputs or not answers:
        return None
    agree: Callable[[str], bool]
    for name in candidates:
        if not _allowed(name, answers, stated_tolerance, statement or ""):
            continue

        def agree(n: str = name) -> bool:
            for i, answer in enumerate(answers):
                outs = [o[i] for o in outputs]
                if not all(accepts(n, answer, o) for o in outs):
                    return False
                if not all(accepts(n, a, b) for a in outs for b in outs if a is not b):
                    return False
            return True

        if agree():
            exact = sum(o[i].split() == a.split() for o in outputs for i, a in enumerate(answers))
            total = len(outputs) * len(answers)
            why = (
                f"{len(outputs)} reference(s) fail exact comparison on {total - exact} of {total} "
                f"outputs; {name} is the strictest standard checker that accepts all of them"
            )
            if stated_tolerance is not None and name in _EPS:
                why += f" (the statement allows an error of {stated_tolerance:g})"
            return name, why
    return None
