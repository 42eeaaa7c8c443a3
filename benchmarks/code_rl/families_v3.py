"""B3 v3's second held-out set (issue 53): families no training problem comes from.

B3 v2's held-out split (`frozen/v2-small/trl`, split `test`) holds other constants of the 38
families the policy trains on. This set holds twelve families written the same way (a statement
with a worked example, two reference programs, 8 `call` tests from the same seeded input
generators) that appear nowhere in B3 v2: not among the RL problems, not in pre-training (the
frozen policy was pre-trained before they were written), not in the ranking. Three in each
learnable target source, each a function none of v2's families computes:

| source | families | nearest v2 family (what changes) |
|---|---|---|
| `arith` | times_minus, clamp_above, abs_plus | affine (minus), clamp_below (the smaller), square_plus (absolute value) |
| `lists` | count_below, keep_above, last_plus | count_above (less than), keep_multiples (a comparison), max_plus (the last number) |
| `algos` | power_mod, square_sum_mod, digit_count_plus | factorial_mod, triangle_mod, digit_sum_plus (another quantity) |
| `strings` | length_minus, repeat_each, pad_right | length_plus (minus), repeat (each character), joined_copies (dashes after s) |

40 problems a source, 160 in all, the families taken in turn (12-16 settings of each, drawn by a
seeded permutation of its settings; thresholds, moduli and inputs chosen so that tests fall on
both sides of a comparison and no constant program passes): every problem of this set is evaluated, none is trained or
pre-trained on (`pretrain_share` 0). The set is built with the real `codemix build` and exported
whole (`bench.py --tasks v3 --prepare`), frozen beside B3 v2's inputs in `frozen/v3-small/families`.
Fixed, and committed, before any v3 run.
"""

from __future__ import annotations

import random

from code_rl.families import Family, TaskSet, _grid, _int, _list, _list_nonempty, _nat, _word

__all__ = ["HELD_OUT_FAMILIES", "FAMILIES_V3_HELD_OUT", "FAMILY_SOURCES", "SPLIT"]

#: the split name of the set in its export and in every run's curve (`pass1_families`)
SPLIT = "families"


def _digits(rng: random.Random) -> list[int]:
    """A number of 1 to 4 digits, each length about as likely."""
    return [rng.randint(0, 10 ** rng.randint(1, 4) - 1)]


FAMILIES_V3_HELD_OUT: list[Family] = [
    # ---- arith -----------------------------------------------------------------------------
    Family(
        "times_minus",
        "arith",
        _grid(range(2, 12), range(1, 20)),
        lambda p: f"Write a function f(x) that returns {p[0]} times x minus {p[1]}.",
        lambda p: [
            f"def f(x):\n    return {p[0]} * x - {p[1]}\n",
            f"def f(x):\n    y = x * {p[0]}\n    return y - {p[1]}\n",
        ],
        lambda p: lambda x: p[0] * x - p[1],
        _int,
    ),
    Family(
        "clamp_above",
        "arith",
        _grid(range(5, 26)),  # inside the inputs' range, so tests fall on both sides
        lambda p: f"Write a function f(x) that returns the smaller of x and {p[0]}.",
        lambda p: [
            f"def f(x):\n    return min(x, {p[0]})\n",
            f"def f(x):\n    if x < {p[0]}:\n        return x\n    return {p[0]}\n",
        ],
        lambda p: lambda x: min(x, p[0]),
        _int,
    ),
    Family(
        "abs_plus",
        "arith",
        _grid(range(0, 40)),
        lambda p: f"Write a function f(x) that returns the absolute value of x plus {p[0]}.",
        lambda p: [
            f"def f(x):\n    return abs(x) + {p[0]}\n",
            f"def f(x):\n    if x < 0:\n        x = -x\n    return x + {p[0]}\n",
        ],
        lambda p: lambda x: abs(x) + p[0],
        _int,
    ),
    # ---- lists -----------------------------------------------------------------------------
    Family(
        "count_below",
        "lists",
        _grid(range(-1, 11)),  # thresholds and values inside the inputs' range (v2's lesson)
        lambda p: (
            f"Write a function f(xs) that returns how many numbers in xs are less than {p[0]}."
        ),
        lambda p: [
            f"def f(xs):\n    return sum(1 for v in xs if v < {p[0]})\n",
            f"def f(xs):\n    return len([v for v in xs if v < {p[0]}])\n",
        ],
        lambda p: lambda xs: sum(1 for v in xs if v < p[0]),
        _list,
    ),
    Family(
        "keep_above",
        "lists",
        _grid(range(-4, 8)),
        lambda p: (
            f"Write a function f(xs) that returns the numbers in xs greater than {p[0]}, in order."
        ),
        lambda p: [
            f"def f(xs):\n    return [v for v in xs if v > {p[0]}]\n",
            f"def f(xs):\n    out = []\n    for v in xs:\n        if v > {p[0]}:\n            out.append(v)\n    return out\n",
        ],
        lambda p: lambda xs: [v for v in xs if v > p[0]],
        _list,
    ),
    Family(
        "last_plus",
        "lists",
        _grid(range(0, 40)),
        lambda p: f"Write a function f(xs) that returns the last number in xs plus {p[0]}.",
        lambda p: [
            f"def f(xs):\n    return xs[-1] + {p[0]}\n",
            f"def f(xs):\n    return xs[len(xs) - 1] + {p[0]}\n",
        ],
        lambda p: lambda xs: xs[-1] + p[0],
        _list_nonempty,
    ),
    # ---- algos -----------------------------------------------------------------------------
    Family(
        "power_mod",
        "algos",
        _grid(range(3, 41, 2)),  # odd moduli: 2^n modulo a power of two is 0 from some n on
        lambda p: f"Write a function f(n) that returns 2 to the power n modulo {p[0]}.",
        lambda p: [
            f"def f(n):\n    return pow(2, n, {p[0]})\n",
            f"def f(n):\n    r = 1\n    for _ in range(n):\n        r = r * 2 % {p[0]}\n    return r % {p[0]}\n",
        ],
        lambda p: lambda n: pow(2, n, p[0]),
        _nat,
    ),
    Family(
        "square_sum_mod",
        "algos",
        _grid(range(2, 41)),
        lambda p: f"Write a function f(n) that returns 0*0 + 1*1 + ... + n*n modulo {p[0]}.",
        lambda p: [
            f"def f(n):\n    return sum(k * k for k in range(n + 1)) % {p[0]}\n",
            f"def f(n):\n    t = 0\n    for k in range(n + 1):\n        t += k * k\n    return t % {p[0]}\n",
        ],
        lambda p: lambda n: sum(k * k for k in range(n + 1)) % p[0],
        _nat,
    ),
    Family(
        "digit_count_plus",
        "algos",
        _grid(range(0, 40)),
        lambda p: f"Write a function f(n) that returns the number of digits of n plus {p[0]}.",
        lambda p: [
            f"def f(n):\n    return len(str(n)) + {p[0]}\n",
            f"def f(n):\n    d = 1\n    while n >= 10:\n        n //= 10\n        d += 1\n    return d + {p[0]}\n",
        ],
        lambda p: lambda n: len(str(n)) + p[0],
        _digits,
    ),
    # ---- strings ---------------------------------------------------------------------------
    Family(
        "length_minus",
        "strings",
        _grid(range(0, 40)),
        lambda p: f"Write a function f(s) that returns the length of s minus {p[0]}.",
        lambda p: [
            f"def f(s):\n    return len(s) - {p[0]}\n",
            f"def f(s):\n    n = len(s)\n    return n - {p[0]}\n",
        ],
        lambda p: lambda s: len(s) - p[0],
        _word,
    ),
    Family(
        "repeat_each",
        "strings",
        _grid(range(2, 14)),
        lambda p: (
            f"Write a function f(s) that returns s with every character repeated {p[0]} times."
        ),
        lambda p: [
            f"def f(s):\n    return ''.join(c * {p[0]} for c in s)\n",
            f"def f(s):\n    out = ''\n    for c in s:\n        out += c * {p[0]}\n    return out\n",
        ],
        lambda p: lambda s: "".join(c * p[0] for c in s),
        _word,
    ),
    Family(
        "pad_right",
        "strings",
        _grid(range(1, 31)),
        lambda p: f"Write a function f(s) that returns s followed by {p[0]} copies of '-'.",
        lambda p: [
            f"def f(s):\n    return s + '-' * {p[0]}\n",
            f"def f(s):\n    return s + ''.join('-' for _ in range({p[0]}))\n",
        ],
        lambda p: lambda s: s + "-" * p[0],
        _word,
    ),
]

#: the sources of the set (three families and 40 problems each)
FAMILY_SOURCES = ["arith", "lists", "algos", "strings"]

HELD_OUT_FAMILIES = TaskSet(
    "v3-families",
    FAMILIES_V3_HELD_OUT,
    pretrain_share={s: 0.0 for s in FAMILY_SOURCES},
    source_size={s: 40 for s in FAMILY_SOURCES},
    split_seed=20261207,
)
