"""Demo problems judged by `check(candidate)` assertions (original, written for codemix)."""

from __future__ import annotations

import random

from curation.demo.spec import Spec

__all__ = ["ASSERT"]


def _text(rng: random.Random) -> str:
    words = ["green", "apple", "of", "the", "ocean", "tIDE", "x", "moon"]
    return " ".join(rng.choice(words) for _ in range(rng.randint(1, 5)))


ASSERT: list[Spec] = [
    Spec(
        "assert-headline-case", "assert",
        "Write headline_case(text) that upper-cases the first letter of every space-separated word and "
        "lower-cases all other letters. Single spaces separate the words.",
        "def headline_case(text):\n    return ' '.join(w[:1].upper() + w[1:].lower() for w in text.split(' '))\n",
        lambda r: [_text(r)], entry="headline_case", tags=("strings",),
    ),
    Spec(
        "assert-batches", "assert",
        "Cut a list into consecutive batches of a given size; the final batch may be shorter. Implement "
        "batches(items, size) for size >= 1, returning a list of lists.",
        "def batches(items, size):\n    return [items[i:i + size] for i in range(0, len(items), size)]\n",
        lambda r: [[r.randint(0, 9) for _ in range(r.randint(0, 9))], r.randint(1, 4)], entry="batches", tags=("arrays",),
    ),
    Spec(
        "assert-digit-product", "assert",
        "Multiply together all decimal digits of a positive integer n and return the product. Implement digit_product(n).",
        "def digit_product(n):\n    p = 1\n    for ch in str(n):\n        p *= int(ch)\n    return p\n",
        lambda r: [r.randint(1, 99999)], entry="digit_product", tags=("math",),
    ),
    Spec(
        "assert-first-seen", "assert",
        "Return the elements of a list with repeats removed, keeping each value where it first appeared. "
        "Implement first_seen(values).",
        "def first_seen(values):\n    seen = set()\n    out = []\n    for v in values:\n        if v not in seen:\n            seen.add(v)\n            out.append(v)\n    return out\n",
        lambda r: [[r.randint(0, 5) for _ in range(r.randint(0, 10))]], entry="first_seen",
        incorrect=("def first_seen(values):\n    return sorted(set(values))\n",), tags=("hashing",),
    ),
    Spec(
        "assert-mirror-number", "assert",
        "An integer is a mirror number when its decimal digits read the same from both ends; negative numbers "
        "never are. Implement mirror_number(n) returning a bool.",
        "def mirror_number(n):\n    return n >= 0 and str(n) == str(n)[::-1]\n",
        lambda r: [r.choice([r.randint(-50, 50), int(str(r.randint(1, 999)) + str(r.randint(1, 999))[::-1]), 12321])],
        entry="mirror_number", n_tests=8, tags=("math",),
    ),
    Spec(
        "assert-weave", "assert",
        "Combine two strings by taking characters alternately, first from a, then from b, and so on; when one "
        "string runs out, append the rest of the other. Implement weave(a, b).",
        "def weave(a, b):\n    out = []\n    for i in range(max(len(a), len(b))):\n        out.append(a[i:i + 1])\n        out.append(b[i:i + 1])\n    return ''.join(out)\n",
        lambda r: ["".join(r.choice("abc") for _ in range(r.randint(0, 5))), "".join(r.choice("XYZ") for _ in range(r.randint(0, 5)))],
        entry="weave", tags=("strings",),
    ),
    Spec(
        "assert-fib-index", "assert",
        "The sequence starts 0, 1 and each later term is the sum of the previous two. Implement fib_index(n) "
        "returning the term at zero-based position n, for n up to 90.",
        "def fib_index(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
        lambda r: [r.randint(0, 90)], entry="fib_index", tags=("math",),
    ),
    Spec(
        "assert-clip-all", "assert",
        "Limit every number of a list to the closed range [low, high]: values below low become low and "
        "values above high become high. Implement clip_all(values, low, high) returning a new list.",
        "def clip_all(values, low, high):\n    return [min(max(v, low), high) for v in values]\n",
        lambda r: [[r.randint(-10, 10) for _ in range(r.randint(0, 8))], -3, r.randint(0, 5)], entry="clip_all", tags=("arrays",),
    ),
    Spec(
        "assert-mismatch-count", "assert",
        "Given two strings of equal length, count the positions where their characters differ. Implement mismatch_count(a, b).",
        "def mismatch_count(a, b):\n    return sum(x != y for x, y in zip(a, b))\n",
        lambda r: (lambda n: ["".join(r.choice("01") for _ in range(n)), "".join(r.choice("01") for _ in range(n))])(r.randint(0, 12)),
        entry="mismatch_count", tags=("strings",),
    ),
    Spec(
        "assert-odd-squares", "assert",
        "Return the sum of the squares of the odd numbers in a list of integers. Implement odd_squares(values).",
        "def odd_squares(values):\n    return sum(v * v for v in values if v % 2)\n",
        lambda r: [[r.randint(-9, 9) for _ in range(r.randint(0, 8))]], entry="odd_squares", tags=("math",),
    ),
    Spec(
        "assert-leap", "assert",
        "In the Gregorian calendar a year has 366 days when it is divisible by 4, except years divisible by "
        "100, which need to be divisible by 400 as well. Implement is_leap(year).",
        "def is_leap(year):\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n",
        lambda r: [r.choice([r.randint(1583, 2500), 1900, 2000, 2100, 2400])], entry="is_leap", n_tests=8,
        incorrect=("def is_leap(year):\n    return year % 4 == 0\n",), tags=("math",),
    ),
    Spec(
        "assert-to-roman", "assert",
        "Write to_roman(n) converting an integer from 1 to 3999 into Roman numerals using the subtractive "
        "forms IV, IX, XL, XC, CD and CM.",
        "def to_roman(n):\n    table = [(1000, 'M'), (900, 'CM'), (500, 'D'), (400, 'CD'), (100, 'C'), (90, 'XC'), (50, 'L'), (40, 'XL'), (10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]\n"
        "    out = ''\n    for v, s in table:\n        k, n = divmod(n, v)\n        out += s * k\n    return out\n",
        lambda r: [r.randint(1, 3999)], entry="to_roman", label="medium", tags=("strings",),
    ),
]  # fmt: skip
