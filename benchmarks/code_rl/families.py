"""B3's task sources: Python function problems from parameterised families written for codemix.

A family is a kind of function (`f(x) = a*x + b`, `the sum of the elements above k`, ...) with
integer or letter parameters; each parameter setting is one problem: a statement with a worked
example, several correct reference programs of different length and style, and 8 `call` tests
from a seeded input generator. Six sources mix families as real data mixtures do:

| source | families | role |
|---|---|---|
| `arith` | affine, modulo, square-plus, clamp-below | large and easy |
| `strings` | repeat, suffix, count-char, replace, prefix | medium |
| `lists` | sum-above, count-equal, scale, keep-multiples, shift | medium |
| `algos` | fib-mod, divisors-above, top-k-sum, longest-run | small and hard |
| `compose` | scale-then-keep, shift-then-count, keep-then-sum | transfer: built from `lists`' pieces, never pre-trained on |
| `mislabeled` | affine and shift statements whose tests use other numbers | low value: the tests contradict the statement |

Every family's parameter settings are split, by a fixed seeded permutation, into disjoint parts:
`pretrain` (reference programs the small model is pre-trained on; none for `compose`, few for
`algos`) and `rl` (the problems that go through `codemix build` and are exported with a held-out
split). These definitions were fixed, and committed, before any arm ran.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ENTRY",
    "FAMILIES",
    "Family",
    "SOURCES",
    "TaskSet",
    "V1",
    "pretrain_pairs",
    "problems",
]

ENTRY = "f"
TESTS = 8


@dataclass(frozen=True)
class Family:
    """One kind of function: `params` are the settings, `statement(p)` the text, `refs(p)` the
    reference programs, `truth(p)` the function the tests come from, `inputs(rng)` one argument
    list."""

    name: str
    source: str
    params: list[tuple]
    statement: Callable[[tuple], str]
    refs: Callable[[tuple], list[str]]
    truth: Callable[[tuple], Callable[..., Any]]
    inputs: Callable[[random.Random], list[Any]]
    #: settings pre-trained on *instead of* a share of `params` (disjoint by construction, e.g.
    #: another alphabet); every one of `params` is then an RL problem
    pretrain_params: list[tuple] | None = None
    #: this family's share of `params` pre-trained on, instead of its source's
    pretrain_share: float | None = None


def _int(rng: random.Random) -> list[Any]:
    return [rng.randint(-20, 40)]


def _nat(rng: random.Random) -> list[Any]:
    return [rng.randint(0, 30)]


def _word(rng: random.Random) -> list[Any]:
    n = rng.randint(0, 7)
    return ["".join(rng.choice("abcdeh") for _ in range(n))]


def _list(rng: random.Random) -> list[Any]:
    return [[rng.randint(-5, 12) for _ in range(rng.randint(0, 7))]]


def _list_nonempty(rng: random.Random) -> list[Any]:
    return [[rng.randint(0, 9) for _ in range(rng.randint(3, 8))]]


def _grid(*ranges: range) -> list[tuple]:
    return list(itertools.product(*ranges))


LETTERS = "abcdeh"

FAMILIES: list[Family] = [
    # ---- arith: large, easy ------------------------------------------------------------------
    Family(
        "affine",
        "arith",
        _grid(range(2, 12), range(0, 20)),
        lambda p: f"Write a function f(x) that returns {p[0]} times x plus {p[1]}.",
        lambda p: [
            f"def f(x):\n    return {p[0]} * x + {p[1]}\n",
            f"def f(x):\n    y = x * {p[0]}\n    return y + {p[1]}\n",
        ],
        lambda p: lambda x: p[0] * x + p[1],
        _int,
    ),
    Family(
        "modulo",
        "arith",
        _grid(range(2, 30)),
        lambda p: f"Write a function f(x) that returns the remainder of x divided by {p[0]}.",
        lambda p: [
            f"def f(x):\n    return x % {p[0]}\n",
            f"def f(x):\n    r = x % {p[0]}\n    return r\n",
        ],
        lambda p: lambda x: x % p[0],
        _int,
    ),
    Family(
        "square_plus",
        "arith",
        _grid(range(0, 40)),
        lambda p: f"Write a function f(x) that returns x squared plus {p[0]}.",
        lambda p: [
            f"def f(x):\n    return x * x + {p[0]}\n",
            f"def f(x):\n    return x ** 2 + {p[0]}\n",
        ],
        lambda p: lambda x: x * x + p[0],
        _int,
    ),
    Family(
        "clamp_below",
        "arith",
        _grid(range(-10, 30)),
        lambda p: f"Write a function f(x) that returns the larger of x and {p[0]}.",
        lambda p: [
            f"def f(x):\n    return max(x, {p[0]})\n",
            f"def f(x):\n    if x > {p[0]}:\n        return x\n    return {p[0]}\n",
        ],
        lambda p: lambda x: max(x, p[0]),
        _int,
    ),
    # ---- strings: medium ---------------------------------------------------------------------
    Family(
        "repeat",
        "strings",
        _grid(range(2, 9)),
        lambda p: f"Write a function f(s) that returns the string s repeated {p[0]} times.",
        lambda p: [
            f"def f(s):\n    return s * {p[0]}\n",
            f"def f(s):\n    out = ''\n    for _ in range({p[0]}):\n        out += s\n    return out\n",
        ],
        lambda p: lambda s: s * p[0],
        _word,
    ),
    Family(
        "suffix",
        "strings",
        [(a,) for a in LETTERS] + [(a + b,) for a, b in itertools.product(LETTERS, LETTERS)],
        lambda p: f"Write a function f(s) that returns s followed by '{p[0]}'.",
        lambda p: [
            f"def f(s):\n    return s + '{p[0]}'\n",
            f"def f(s):\n    return ''.join([s, '{p[0]}'])\n",
        ],
        lambda p: lambda s: s + p[0],
        _word,
    ),
    Family(
        "count_char",
        "strings",
        [(c,) for c in LETTERS],
        lambda p: f"Write a function f(s) that returns how many times '{p[0]}' occurs in s.",
        lambda p: [
            f"def f(s):\n    return s.count('{p[0]}')\n",
            f"def f(s):\n    return sum(1 for c in s if c == '{p[0]}')\n",
            f"def f(s):\n    n = 0\n    for c in s:\n        if c == '{p[0]}':\n            n += 1\n    return n\n",
        ],
        lambda p: lambda s: s.count(p[0]),
        _word,
    ),
    Family(
        "replace",
        "strings",
        [(a, b) for a, b in itertools.product(LETTERS, "xyzuvw")],
        lambda p: f"Write a function f(s) that returns s with every '{p[0]}' replaced by '{p[1]}'.",
        lambda p: [
            f"def f(s):\n    return s.replace('{p[0]}', '{p[1]}')\n",
            f"def f(s):\n    return ''.join('{p[1]}' if c == '{p[0]}' else c for c in s)\n",
        ],
        lambda p: lambda s: s.replace(p[0], p[1]),
        _word,
    ),
    Family(
        "prefix",
        "strings",
        _grid(range(1, 7)),
        lambda p: f"Write a function f(s) that returns the first {p[0]} characters of s.",
        lambda p: [
            f"def f(s):\n    return s[:{p[0]}]\n",
            f"def f(s):\n    return s[0:{p[0]}]\n",
        ],
        lambda p: lambda s: s[: p[0]],
        _word,
    ),
    # ---- lists: medium -----------------------------------------------------------------------
    Family(
        "sum_above",
        "lists",
        _grid(range(-10, 30)),
        lambda p: (
            f"Write a function f(xs) that returns the sum of the numbers in xs greater than {p[0]}."
        ),
        lambda p: [
            f"def f(xs):\n    return sum(v for v in xs if v > {p[0]})\n",
            f"def f(xs):\n    t = 0\n    for v in xs:\n        if v > {p[0]}:\n            t += v\n    return t\n",
        ],
        lambda p: lambda xs: sum(v for v in xs if v > p[0]),
        _list,
    ),
    Family(
        "count_equal",
        "lists",
        _grid(range(-10, 30)),
        lambda p: (
            f"Write a function f(xs) that returns how many numbers in xs are equal to {p[0]}."
        ),
        lambda p: [
            f"def f(xs):\n    return xs.count({p[0]})\n",
            f"def f(xs):\n    return sum(1 for v in xs if v == {p[0]})\n",
        ],
        lambda p: lambda xs: xs.count(p[0]),
        _list,
    ),
    Family(
        "scale",
        "lists",
        _grid(range(2, 40)),
        lambda p: f"Write a function f(xs) that returns a list of each number in xs times {p[0]}.",
        lambda p: [
            f"def f(xs):\n    return [v * {p[0]} for v in xs]\n",
            f"def f(xs):\n    return list(map(lambda v: v * {p[0]}, xs))\n",
        ],
        lambda p: lambda xs: [v * p[0] for v in xs],
        _list,
    ),
    Family(
        "keep_multiples",
        "lists",
        _grid(range(2, 15)),
        lambda p: (
            f"Write a function f(xs) that returns the numbers in xs divisible by {p[0]}, in order."
        ),
        lambda p: [
            f"def f(xs):\n    return [v for v in xs if v % {p[0]} == 0]\n",
            f"def f(xs):\n    out = []\n    for v in xs:\n        if v % {p[0]} == 0:\n            out.append(v)\n    return out\n",
        ],
        lambda p: lambda xs: [v for v in xs if v % p[0] == 0],
        _list,
    ),
    Family(
        "shift",
        "lists",
        _grid(range(1, 60)),
        lambda p: f"Write a function f(xs) that returns a list of each number in xs plus {p[0]}.",
        lambda p: [
            f"def f(xs):\n    return [v + {p[0]} for v in xs]\n",
            f"def f(xs):\n    return [{p[0]} + v for v in xs]\n",
        ],
        lambda p: lambda xs: [v + p[0] for v in xs],
        _list,
    ),
    # ---- algos: small, hard ------------------------------------------------------------------
    Family(
        "fib_mod",
        "algos",
        _grid(range(2, 40)),
        lambda p: (
            f"Write a function f(n) that returns the n-th Fibonacci number (f(0) = 0, f(1) = 1) modulo {p[0]}."
        ),
        lambda p: [
            f"def f(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a % {p[0]}\n",
            f"def f(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, (a + b) % {p[0]}\n    return a % {p[0]}\n",
        ],
        lambda p: lambda n: _fib(n) % p[0],
        _nat,
    ),
    Family(
        "divisors_above",
        "algos",
        _grid(range(0, 12)),
        lambda p: (
            f"Write a function f(n) that returns how many divisors of n are greater than {p[0]}."
        ),
        lambda p: [
            f"def f(n):\n    return sum(1 for d in range(1, n + 1) if n % d == 0 and d > {p[0]})\n",
            f"def f(n):\n    c = 0\n    for d in range({p[0]} + 1, n + 1):\n        if n % d == 0:\n            c += 1\n    return c\n",
        ],
        lambda p: lambda n: sum(1 for d in range(1, n + 1) if n % d == 0 and d > p[0]),
        _nat,
    ),
    Family(
        "top_k_sum",
        "algos",
        _grid(range(1, 4)),
        lambda p: (
            f"Write a function f(xs) that returns the sum of the {p[0]} largest numbers in xs."
        ),
        lambda p: [
            f"def f(xs):\n    return sum(sorted(xs)[-{p[0]}:])\n",
            f"def f(xs):\n    return sum(sorted(xs, reverse=True)[:{p[0]}])\n",
        ],
        lambda p: lambda xs: sum(sorted(xs)[-p[0] :]),
        _list_nonempty,
    ),
    Family(
        "longest_run",
        "algos",
        _grid(range(0, 10)),
        lambda p: (
            f"Write a function f(xs) that returns the length of the longest run of consecutive {p[0]}s in xs."
        ),
        lambda p: [
            f"def f(xs):\n    best = cur = 0\n    for v in xs:\n        cur = cur + 1 if v == {p[0]} else 0\n        best = max(best, cur)\n    return best\n",
        ],
        lambda p: lambda xs: _run(xs, p[0]),
        _list_nonempty,
    ),
    # ---- compose: transfer from lists --------------------------------------------------------
    Family(
        "scale_then_keep",
        "compose",
        _grid(range(2, 6), range(0, 12)),
        lambda p: (
            f"Write a function f(xs) that multiplies each number in xs by {p[0]} and returns those greater than {p[1]}."
        ),
        lambda p: [
            f"def f(xs):\n    return [v * {p[0]} for v in xs if v * {p[0]} > {p[1]}]\n",
            f"def f(xs):\n    ys = [v * {p[0]} for v in xs]\n    return [v for v in ys if v > {p[1]}]\n",
        ],
        lambda p: lambda xs: [v * p[0] for v in xs if v * p[0] > p[1]],
        _list,
    ),
    Family(
        "shift_then_count",
        "compose",
        _grid(range(1, 8), range(0, 10)),
        lambda p: (
            f"Write a function f(xs) that adds {p[0]} to each number in xs and returns how many results equal {p[1]}."
        ),
        lambda p: [
            f"def f(xs):\n    return sum(1 for v in xs if v + {p[0]} == {p[1]})\n",
            f"def f(xs):\n    return [v + {p[0]} for v in xs].count({p[1]})\n",
        ],
        lambda p: lambda xs: [v + p[0] for v in xs].count(p[1]),
        _list,
    ),
    Family(
        "keep_then_sum",
        "compose",
        _grid(range(2, 6), range(-2, 6)),
        lambda p: (
            f"Write a function f(xs) that returns the sum of the numbers in xs divisible by {p[0]} and greater than {p[1]}."
        ),
        lambda p: [
            f"def f(xs):\n    return sum(v for v in xs if v % {p[0]} == 0 and v > {p[1]})\n",
            f"def f(xs):\n    t = 0\n    for v in xs:\n        if v % {p[0]} == 0 and v > {p[1]}:\n            t += v\n    return t\n",
        ],
        lambda p: lambda xs: sum(v for v in xs if v % p[0] == 0 and v > p[1]),
        _list,
    ),
    # ---- mislabeled: the tests contradict the statement --------------------------------------
    Family(
        "affine_mislabeled",
        "mislabeled",
        _grid(range(2, 12), range(0, 20)),
        lambda p: f"Write a function f(x) that returns {p[0]} times x plus {p[1]}.",
        lambda p: [f"def f(x):\n    return {p[0] + 1} * x + {p[1] + 3}\n"],
        lambda p: lambda x: (p[0] + 1) * x + p[1] + 3,
        _int,
    ),
    Family(
        "shift_mislabeled",
        "mislabeled",
        _grid(range(1, 15)),
        lambda p: f"Write a function f(xs) that returns a list of each number in xs plus {p[0]}.",
        lambda p: [f"def f(xs):\n    return [v - {p[0]} for v in xs]\n"],
        lambda p: lambda xs: [v - p[0] for v in xs],
        _list,
    ),
]


def _fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def _run(xs: list[int], k: int) -> int:
    best = cur = 0
    for v in xs:
        cur = cur + 1 if v == k else 0
        best = max(best, cur)
    return best


@dataclass(frozen=True)
class TaskSet:
    """Sources built from `families`: each family's settings split into pre-training and RL parts
    (`pretrain_share` per source unless the family says otherwise), each source holding at most
    `source_size` RL problems; `split_seed` fixes the split and every test input."""

    name: str
    families: list[Family]
    pretrain_share: dict[str, float]
    source_size: dict[str, int]
    split_seed: int

    @property
    def sources(self) -> list[str]:
        return list(self.source_size)


#: B3 (issue 29): the share of each family's settings kept for pre-training (the rest are the RL
#: problems), and how many RL problems each source keeps at most: sources differ in size and
#: difficulty
V1 = TaskSet(
    "v1",
    FAMILIES,
    pretrain_share={
        "arith": 0.5,
        "strings": 0.5,
        "lists": 0.5,
        "algos": 0.25,
        "compose": 0.0,
        "mislabeled": 0.0,
    },
    source_size={
        "arith": 150,
        "strings": 50,
        "lists": 90,
        "algos": 45,
        "compose": 100,
        "mislabeled": 80,
    },
    split_seed=20261202,
)
SOURCES = V1.sources


def _example(fam: Family, p: tuple, rng: random.Random) -> str:
    args = fam.inputs(rng)
    shown = ", ".join(repr(a) for a in args)
    return f"For example, f({shown}) == {fam.truth(p)(*args)!r}."


def _split(fam: Family, tasks: TaskSet) -> tuple[list[tuple], list[tuple]]:
    """(pretrain, rl) settings of `fam`: its own pre-training settings, or a fixed seeded
    permutation of its settings cut by its share."""
    if fam.pretrain_params is not None:
        return list(fam.pretrain_params), list(fam.params)
    order = list(fam.params)
    random.Random(f"{tasks.split_seed}/{fam.name}").shuffle(order)
    share = tasks.pretrain_share[fam.source] if fam.pretrain_share is None else fam.pretrain_share
    cut = round(share * len(order))
    return order[:cut], order[cut:]


def _record(fam: Family, p: tuple, seed: int) -> dict[str, Any]:
    rng = random.Random(f"{seed}/{fam.name}/{p}")
    truth = fam.truth(p)
    tests, seen = [], set()
    for _ in range(200):
        args = fam.inputs(rng)
        key = json.dumps(args)
        if key in seen:
            continue
        seen.add(key)
        tests.append({"input": key, "output": json.dumps(truth(*args))})
        if len(tests) == TESTS:
            break
    pid = f"{fam.name}-" + "-".join(str(x) for x in p).replace("--", "-m")
    return {
        "id": pid,
        "source": fam.source,
        "statement": fam.statement(p) + " " + _example(fam, p, rng),
        "starter_code": None,
        "language": "python",
        "test_type": "call",
        "entry_point": ENTRY,
        "tests": tests,
        "test_code": None,
        "solutions": fam.refs(p),
        "incorrect_solutions": [],
        "checker": None,
        "time_limit_s": 2.0,
        "memory_limit_mb": 256,
        "difficulty_label": fam.name,
        "tags": [fam.source, fam.name],
    }


def problems(
    source: str | None = None, limit: int | None = None, tasks: TaskSet = V1
) -> Iterator[dict[str, Any]]:
    """The RL problems (canonical records) of one source or of all, in a fixed order: each
    source's families taken in turn until the source holds its `source_size` problems (or
    `limit`, for the quick modes: the first problems of the same order)."""
    for src in [source] if source else tasks.sources:
        fams = [f for f in tasks.families if f.source == src]
        pools = [_split(f, tasks)[1] for f in fams]
        out, i = 0, 0
        size = tasks.source_size[src] if limit is None else min(limit, tasks.source_size[src])
        while out < size and any(pools):
            fam, pool = fams[i % len(fams)], pools[i % len(fams)]
            i += 1
            if pool:
                yield _record(fam, pool.pop(0), tasks.split_seed)
                out += 1


def pretrain_pairs(tasks: TaskSet = V1) -> list[tuple[dict[str, Any], str]]:
    """(record, reference program) pairs of the pre-training settings: every reference of every
    setting, so the model sees the styles of each family; no setting is also an RL problem."""
    out = []
    for fam in tasks.families:
        for p in _split(fam, tasks)[0]:
            rec = _record(fam, p, tasks.split_seed)
            out.extend((rec, ref) for ref in rec["solutions"])
    return out
