"""Demo rows with planted defects, each one meant to be caught by a named stage.

The HumanEval/0 prompt below is copied verbatim from HumanEval (OpenAI, MIT licence) on purpose:
it is the contamination the decontamination stage must find. Everything else is original.
"""

from __future__ import annotations

import random
from typing import Any

from curation.demo.bank_stdio import STDIO
from curation.demo.spec import Spec

__all__ = ["PLANTED_SPECS", "MALFORMED_ROWS", "HUMANEVAL_0_PROMPT"]

HUMANEVAL_0_PROMPT = '''from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    """ Check if in given list of numbers, are any two numbers closer to each other than
    given threshold.
    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)
    False
    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)
    True
    """
'''


def _by_id(specs: list[Spec], id_: str) -> Spec:
    return next(s for s in specs if s.id == id_)


def _pair_input(rng: random.Random) -> str:
    """Mostly small inputs; some with n = 20000 (with this seed: test 5 only)."""
    n = 20000 if rng.random() < 0.15 else rng.randint(2, 12)
    k = rng.randint(2, 9)
    return f"{n} {k}\n" + " ".join(str(rng.randint(1, 10**6)) for _ in range(n)) + "\n"


_SLOW_PAIRS = (
    "n, k = map(int, input().split())\na = list(map(int, input().split()))\nc = 0\n"
    "for i in range(n):\n    for j in range(i + 1, n):\n        if (a[i] + a[j]) % k == 0:\n            c += 1\nprint(c)\n"
)
_FAST_PAIRS = (
    "n, k = map(int, input().split())\na = list(map(int, input().split()))\ncnt = [0] * k\n"
    "for v in a:\n    cnt[v % k] += 1\nc = cnt[0] * (cnt[0] - 1) // 2\n"
    "for r in range(1, k):\n    s = k - r\n    if r < s:\n        c += cnt[r] * cnt[s]\n    elif r == s:\n        c += cnt[r] * (cnt[r] - 1) // 2\nprint(c)\n"
)

_cover = _by_id(STDIO, "stdio-cover-length")
_reverse = _by_id(STDIO, "stdio-reverse-words")

PLANTED_SPECS: list[Spec] = [
    # verify: the only reference solution is wrong (returns the mean, tests hold the median).
    Spec(
        "call-middle-value", "call",
        "Given a list with an odd number of integers, return the value that would sit in the middle "
        "position if the list were sorted. Implement middle_value(nums).",
        "def middle_value(nums):\n    return sum(nums) // len(nums)\n",
        lambda r: [[r.randint(-30, 90) for _ in range(2 * r.randint(1, 4) + 1)]], entry="middle_value",
        oracle="def middle_value(nums):\n    return sorted(nums)[len(nums) // 2]\n", n_tests=7, tags=("sorting",),
    ),
    # verify: correct but quadratic reference; test 5 has n = 20000 -> far over the 1 s limit.
    Spec(
        "stdio-pair-sums-slow", "stdio",
        "The first line holds n and k, the second n positive integers. Count the unordered pairs of "
        "positions i < j whose values add up to a multiple of k, and print that count.",
        _SLOW_PAIRS, _pair_input, oracle=_FAST_PAIRS, n_tests=6, time_limit_s=1.0, label="C",
        tags=("math", "counting"),
    ),
    # verify: only three tests, and amplify cannot add any: several answers are valid and one
    # reference cannot tell which a new input's test should accept (that needs a checker).
    Spec(
        "stdio-any-divisor", "stdio",
        "Given an integer n > 1, print a divisor d of n with 1 < d <= n. If there are several, print any of them.",
        "n = int(input())\nprint(next(d for d in range(2, n + 1) if n % d == 0))\n",
        lambda r: f"{r.randint(2, 60) * r.randint(2, 60)}\n", n_tests=3, label="A", tags=("math",),
    ),
    # verify: the known-wrong solution (last element) passes, since every test list is sorted.
    Spec(
        "call-top-reading", "call",
        "A list of temperature readings is given. Implement top_reading(readings) returning the highest "
        "reading in the list, which is never empty.",
        "def top_reading(readings):\n    return max(readings)\n",
        lambda r: [sorted(r.randint(-40, 45) for _ in range(r.randint(1, 8)))], entry="top_reading",
        incorrect=("def top_reading(readings):\n    return readings[-1]\n",), tags=("arrays",),
    ),
    # dedup: exact copy of stdio-reverse-words under another id.
    Spec("stdio-reverse-words-copy", "stdio", _reverse.statement, _reverse.solution, _reverse.gen, label=_reverse.label,
         tags=_reverse.tags),
    # dedup: one word reworded, a variable renamed in the solution.
    Spec(
        "stdio-cover-length-v2", "stdio", _cover.statement.replace("Several painters", "Several workers"),
        _cover.solution.replace("segs", "spans"), _cover.gen, label=_cover.label, tags=_cover.tags,
    ),
    # decontam: statement copied from HumanEval/0; solution and tests are ours and correct.
    Spec(
        "call-close-pair", "call", HUMANEVAL_0_PROMPT,
        "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        "    s = sorted(numbers)\n    return any(b - a < threshold for a, b in zip(s, s[1:]))\n",
        lambda r: [[r.randint(0, 60) / 10 for _ in range(r.randint(2, 7))], r.choice([0.25, 0.55, 1.05])],
        entry="has_close_elements", starter=HUMANEVAL_0_PROMPT, n_tests=7,
    ),
]  # fmt: skip

#: Rows that are not valid records; (row, field the schema stage must name).
MALFORMED_ROWS: list[tuple[dict[str, Any], str]] = [
    (
        {
            "id": "call-broken-json", "source": "demo-interview", "language": "python", "test_type": "call",
            "statement": "Return the sum of two integers a and b. Implement add_two(a, b).",
            "entry_point": "add_two", "solutions": ["def add_two(a, b):\n    return a + b\n"],
            "tests": [{"input": "[1, 2", "output": "3"}] + [{"input": f"[{i}, {i}]", "output": str(2 * i)} for i in range(5)],
        },
        "tests",
    ),
    (
        {
            "id": "assert-no-test-code", "source": "demo-basics", "language": "python", "test_type": "assert",
            "statement": "Return the absolute difference of two integers. Implement gap(a, b).",
            "entry_point": "gap", "solutions": ["def gap(a, b):\n    return abs(a - b)\n"], "test_code": None,
        },
        "test_code",
    ),
]  # fmt: skip
