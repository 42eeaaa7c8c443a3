"""B3 v2's task sources (issue 41): seven sources whose step-0 pass rates are chosen by design,
so that uniform GRPO learns and a sampler has room to mix.

| source | families | step-0 band | role |
|---|---|---|---|
| `arith` | B3's four | about 0.9 | large, saturated |
| `trivial` | constant, plus | >= 0.97 | pure waste: every group all-pass |
| `mislabeled` | B3's two | 0 | harm readout, never in the target: tests contradict the statement |
| `compose` | B3's three, `keep_then_sum` pre-trained on | 0.05-0.15 | hard but learnable |
| `lists` | B3's five and five more | 0.2-0.6 | medium |
| `algos` | B3's four and four more | 0.2-0.6 | medium, about 120 problems |
| `strings` | seven, letter parameters pre-trained on another alphabet | 0.2-0.6 | copying a parameter |

B3's `strings` failed because the model wrote letters it had memorised (3-21 pre-training settings
a family) and never learnt to copy one from the prompt: here every family with a letter parameter
is pre-trained on a disjoint alphabet (`PRETRAIN_LETTERS`) with every letter pair, so copying is
the only way to pass, and its RL problems use B3's letters. B3's `compose` was never pre-trained
on (0 pass): here one of its families is. The families, shares and sizes are fixed (committed)
before any arm runs; the bands are measured on the build (`b3v2.md`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from typing import Any

from code_rl.families import (
    FAMILIES,
    LETTERS,
    Family,
    TaskSet,
    _grid,
    _int,
    _list,
    _list_nonempty,
    _nat,
    _word,
)

__all__ = ["V2", "BANDS", "PRETRAIN_LETTERS", "TARGET_SOURCES", "READOUT_SOURCES"]

#: the alphabet the letter families are pre-trained on: disjoint from B3's `LETTERS` (the RL
#: problems' letters and test inputs) and from the replacement letters
PRETRAIN_LETTERS = "fgjkmnpr"
REPLACEMENTS = "xyzuvw"
assert not set(PRETRAIN_LETTERS) & set(LETTERS + REPLACEMENTS)

#: the sources the target metric (micro pass@1) is over; the others are read out apart
TARGET_SOURCES = ["arith", "compose", "lists", "algos", "strings"]
READOUT_SOURCES = ["trivial", "mislabeled"]
#: each source's step-0 pass rate by design (the checkpoint the arms start from is chosen by them)
BANDS: dict[str, tuple[float, float]] = {
    "arith": (0.8, 0.97),
    "trivial": (0.97, 1.0),
    "mislabeled": (0.0, 0.0),
    "compose": (0.05, 0.15),
    "lists": (0.2, 0.6),
    "algos": (0.2, 0.6),
    "strings": (0.2, 0.6),
}

_B3 = {f.name: f for f in FAMILIES}


def _letters(alphabet: str) -> list[tuple]:
    return [(a,) for a in alphabet]


def _letters_and_pairs(alphabet: str) -> list[tuple]:
    return _letters(alphabet) + [(a + b,) for a, b in itertools.product(alphabet, alphabet)]


def _digit_sum(n: int) -> int:
    return sum(int(c) for c in str(n))


def _factorial(n: int) -> int:
    out = 1
    for k in range(2, n + 1):
        out *= k
    return out


def _trivial(name: str, statement: str, program: str, truth: Callable[..., Any]) -> Family:
    """A `trivial` family: its RL problems are the very settings it is pre-trained on (solved
    before RL starts, by design: B3 v2's first build, on unseen numbers up to 120, passed only
    0.44 of them, and 0.88 on unseen small numbers)."""
    params = _grid(range(1, 41))
    return Family(
        name,
        "trivial",
        params,
        lambda p: f"Write a function f(x) that {statement.format(k=p[0])}.",
        lambda p: [
            f"def f(x):\n    return {program.format(k=p[0])}\n",
            f"def f(x):\n    y = {program.format(k=p[0])}\n    return y\n",
        ],
        lambda p: lambda x: truth(x, p[0]),
        _int,
        pretrain_params=params,
    )


_TRIVIAL = [
    _trivial("plus", "returns x plus {k}", "x + {k}", lambda x, k: x + k),
    _trivial("minus", "returns x minus {k}", "x - {k}", lambda x, k: x - k),
]

_LISTS_MORE = [
    Family(
        "count_above",
        "lists",
        _grid(range(-4, 11)),
        lambda p: (
            f"Write a function f(xs) that returns how many numbers in xs are greater than {p[0]}."
        ),
        lambda p: [
            f"def f(xs):\n    return sum(1 for v in xs if v > {p[0]})\n",
            f"def f(xs):\n    return len([v for v in xs if v > {p[0]}])\n",
        ],
        lambda p: lambda xs: sum(1 for v in xs if v > p[0]),
        _list,
    ),
    Family(
        "max_plus",
        "lists",
        _grid(range(0, 40)),
        lambda p: f"Write a function f(xs) that returns the largest number in xs plus {p[0]}.",
        lambda p: [
            f"def f(xs):\n    return max(xs) + {p[0]}\n",
            f"def f(xs):\n    best = xs[0]\n    for v in xs:\n        if v > best:\n            best = v\n    return best + {p[0]}\n",
        ],
        lambda p: lambda xs: max(xs) + p[0],
        _list_nonempty,
    ),
    Family(
        "min_plus",
        "lists",
        _grid(range(0, 40)),
        lambda p: f"Write a function f(xs) that returns the smallest number in xs plus {p[0]}.",
        lambda p: [
            f"def f(xs):\n    return min(xs) + {p[0]}\n",
            f"def f(xs):\n    return sorted(xs)[0] + {p[0]}\n",
        ],
        lambda p: lambda xs: min(xs) + p[0],
        _list_nonempty,
    ),
    Family(
        "sum_times",
        "lists",
        _grid(range(2, 42)),
        lambda p: f"Write a function f(xs) that returns the sum of the numbers in xs times {p[0]}.",
        lambda p: [
            f"def f(xs):\n    return sum(xs) * {p[0]}\n",
            f"def f(xs):\n    t = 0\n    for v in xs:\n        t += v\n    return t * {p[0]}\n",
        ],
        lambda p: lambda xs: sum(xs) * p[0],
        _list_nonempty,
    ),
    Family(
        "drop_value",
        "lists",
        _grid(range(0, 10)),
        lambda p: (
            f"Write a function f(xs) that returns the numbers in xs that are not equal to {p[0]}, in order."
        ),
        lambda p: [
            f"def f(xs):\n    return [v for v in xs if v != {p[0]}]\n",
            f"def f(xs):\n    out = []\n    for v in xs:\n        if v != {p[0]}:\n            out.append(v)\n    return out\n",
        ],
        lambda p: lambda xs: [v for v in xs if v != p[0]],
        _list_nonempty,
    ),
]

_ALGOS_MORE = [
    Family(
        "factorial_mod",
        "algos",
        _grid(range(2, 41)),
        lambda p: f"Write a function f(n) that returns n factorial modulo {p[0]}.",
        lambda p: [
            f"def f(n):\n    r = 1\n    for k in range(2, n + 1):\n        r = r * k\n    return r % {p[0]}\n",
            f"def f(n):\n    r = 1\n    for k in range(1, n + 1):\n        r = r * k % {p[0]}\n    return r % {p[0]}\n",
        ],
        lambda p: lambda n: _factorial(n) % p[0],
        _nat,
    ),
    Family(
        "triangle_mod",
        "algos",
        _grid(range(2, 41)),
        lambda p: f"Write a function f(n) that returns 0 + 1 + ... + n modulo {p[0]}.",
        lambda p: [
            f"def f(n):\n    return sum(range(n + 1)) % {p[0]}\n",
            f"def f(n):\n    t = 0\n    for k in range(n + 1):\n        t += k\n    return t % {p[0]}\n",
        ],
        lambda p: lambda n: (n * (n + 1) // 2) % p[0],
        _nat,
    ),
    Family(
        "digit_sum_plus",
        "algos",
        _grid(range(0, 40)),
        lambda p: f"Write a function f(n) that returns the sum of the digits of n plus {p[0]}.",
        lambda p: [
            f"def f(n):\n    return sum(int(c) for c in str(n)) + {p[0]}\n",
            f"def f(n):\n    t = 0\n    while n > 0:\n        t += n % 10\n        n //= 10\n    return t + {p[0]}\n",
        ],
        lambda p: lambda n: _digit_sum(n) + p[0],
        lambda rng: [rng.randint(0, 999)],
    ),
    Family(
        "sum_multiples",
        "algos",
        _grid(range(2, 21)),
        lambda p: (
            f"Write a function f(n) that returns the sum of the multiples of {p[0]} from 1 to n."
        ),
        lambda p: [
            f"def f(n):\n    return sum(k for k in range(1, n + 1) if k % {p[0]} == 0)\n",
            f"def f(n):\n    return sum(range({p[0]}, n + 1, {p[0]}))\n",
        ],
        lambda p: lambda n: sum(k for k in range(1, n + 1) if k % p[0] == 0),
        lambda rng: [rng.randint(0, 60)],
    ),
]


def _string_family(
    name: str,
    statement: Callable[[tuple], str],
    refs: Callable[[tuple], list[str]],
    truth: Callable[[tuple], Callable[..., Any]],
    rl: list[tuple],
    pre: list[tuple],
) -> Family:
    """A `strings` family whose RL settings are `rl` and whose pre-training settings are `pre`."""
    return Family(name, "strings", rl, statement, refs, truth, _word, pretrain_params=pre)


def _int_string_family(
    name: str, statement: str, programs: list[str], truth: Callable[..., Any], ks: range
) -> Family:
    """A `strings` family with one integer parameter `k`, pre-trained on a share of its settings."""
    return Family(
        name,
        "strings",
        _grid(ks),
        lambda p: f"Write a function f(s) that returns {statement.format(k=p[0])}.",
        lambda p: [f"def f(s):\n    {body.format(k=p[0])}\n" for body in programs],
        lambda p: lambda s: truth(s, p[0]),
        _word,
    )


_STRINGS = [
    # integer parameters (copied as the other sources copy theirs): pre-trained on a share of
    # their settings
    dataclasses.replace(_B3["repeat"], params=_grid(range(2, 14))),
    dataclasses.replace(_B3["prefix"], params=_grid(range(1, 9))),
    _int_string_family(
        "length_plus",
        "the length of s plus {k}",
        ["return len(s) + {k}", "n = len(s)\n    return n + {k}"],
        lambda s, k: len(s) + k,
        range(0, 60),
    ),
    _int_string_family(
        "length_times",
        "the length of s times {k}",
        ["return len(s) * {k}", "return {k} * len(s)"],
        lambda s, k: len(s) * k,
        range(2, 32),
    ),
    _int_string_family(
        "joined_copies",
        "{k} copies of s joined by '-'",
        ["return '-'.join([s] * {k})", "return '-'.join(s for _ in range({k}))"],
        lambda s, k: "-".join([s] * k),
        range(2, 14),
    ),
    _int_string_family(
        "last_chars",
        "the last {k} characters of s",
        ["return s[-{k}:]", "return s[len(s) - {k}:] if len(s) > {k} else s"],
        lambda s, k: s[-k:],
        range(1, 9),
    ),
    _int_string_family(
        "drop_first",
        "s without its first {k} characters",
        ["return s[{k}:]", "return s[{k}:len(s)]"],
        lambda s, k: s[k:],
        range(1, 9),
    ),
    # letter parameters: RL on B3's letters, pre-trained on PRETRAIN_LETTERS with every pair
    # (attempt 1: a model pre-trained so copies no letter it has not written in quotes; kept as
    # the source's hard part)
    _string_family(
        "suffix",
        _B3["suffix"].statement,
        _B3["suffix"].refs,
        _B3["suffix"].truth,
        _letters_and_pairs(LETTERS),
        _letters_and_pairs(PRETRAIN_LETTERS),
    ),
    _string_family(
        "prepend",
        lambda p: f"Write a function f(s) that returns '{p[0]}' followed by s.",
        lambda p: [
            f"def f(s):\n    return '{p[0]}' + s\n",
            f"def f(s):\n    return ''.join(['{p[0]}', s])\n",
        ],
        lambda p: lambda s: p[0] + s,
        _letters_and_pairs(LETTERS),
        _letters_and_pairs(PRETRAIN_LETTERS),
    ),
    _string_family(
        "count_char",
        _B3["count_char"].statement,
        _B3["count_char"].refs,
        _B3["count_char"].truth,
        _letters(LETTERS),
        _letters(PRETRAIN_LETTERS),
    ),
    _string_family(
        "remove_char",
        lambda p: f"Write a function f(s) that returns s with every '{p[0]}' removed.",
        lambda p: [
            f"def f(s):\n    return s.replace('{p[0]}', '')\n",
            f"def f(s):\n    return ''.join(c for c in s if c != '{p[0]}')\n",
        ],
        lambda p: lambda s: s.replace(p[0], ""),
        _letters(LETTERS),
        _letters(PRETRAIN_LETTERS),
    ),
    _string_family(
        "replace",
        _B3["replace"].statement,
        _B3["replace"].refs,
        _B3["replace"].truth,
        [(a, b) for a, b in itertools.product(LETTERS, LETTERS) if a != b],
        [(a, b) for a, b in itertools.product(PRETRAIN_LETTERS, PRETRAIN_LETTERS) if a != b],
    ),
]

_COMPOSE = [
    _B3["scale_then_keep"],
    _B3["shift_then_count"],
    # the one compose family pre-trained on (a share of its settings): hard, but learnable
    dataclasses.replace(
        _B3["keep_then_sum"], params=_grid(range(2, 8), range(-3, 9)), pretrain_share=0.2
    ),
]

FAMILIES_V2: list[Family] = [
    *(_B3[n] for n in ("affine", "modulo", "square_plus", "clamp_below")),
    *_TRIVIAL,
    _B3["affine_mislabeled"],
    _B3["shift_mislabeled"],
    *_COMPOSE,
    # B3's lists, with thresholds and values inside the test inputs' range (B3's build dropped 14
    # of them for tests no mutant fails: a threshold above every input, a value no input holds)
    dataclasses.replace(_B3["sum_above"], params=_grid(range(-4, 11))),
    dataclasses.replace(_B3["count_equal"], params=_grid(range(0, 10)), inputs=_list_nonempty),
    *(_B3[n] for n in ("scale", "keep_multiples", "shift")),
    *_LISTS_MORE,
    *(_B3[n] for n in ("fib_mod", "divisors_above", "top_k_sum", "longest_run")),
    *_ALGOS_MORE,
    *_STRINGS,
]

V2 = TaskSet(
    "v2",
    FAMILIES_V2,
    pretrain_share={
        "arith": 0.5,
        "trivial": 0.5,
        "mislabeled": 0.0,
        "compose": 0.0,
        "lists": 0.25,
        "algos": 0.2,
        "strings": 0.5,
    },
    source_size={
        "arith": 130,
        "trivial": 80,
        "mislabeled": 60,
        "compose": 100,
        "lists": 120,
        "algos": 120,
        "strings": 120,
    },
    split_seed=20261205,
)
