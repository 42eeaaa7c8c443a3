"""Demo problems judged by calling a function and comparing its JSON return value (original)."""

from __future__ import annotations

import random

from curation.demo.spec import Spec

__all__ = ["CALL"]


def _nums(rng: random.Random, lo: int = -20, hi: int = 20, n_max: int = 10) -> list[int]:
    return [rng.randint(lo, hi) for _ in range(rng.randint(1, n_max))]


def _word(rng: random.Random, alphabet: str = "abcde", n_max: int = 8) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, n_max)))


CALL: list[Spec] = [
    Spec(
        "call-rotate-right", "call",
        "Write rotate_right(items, k) that returns a new list with the elements of items shifted k places "
        "to the right; elements pushed off the end wrap around to the front. k may exceed the length. An "
        "empty list stays empty.",
        "def rotate_right(items, k):\n    if not items:\n        return []\n    k %= len(items)\n    return items[-k:] + items[:-k] if k else list(items)\n",
        lambda r: [_nums(r), r.randint(0, 25)], entry="rotate_right",
        incorrect=("def rotate_right(items, k):\n    return items[k:] + items[:k]\n",), tags=("arrays",),
    ),
    Spec(
        "call-letter-tally", "call",
        "Implement letter_tally(text) returning a dictionary that maps each distinct character of text to "
        "the number of times it occurs. Keys appear in the order of first occurrence.",
        "def letter_tally(text):\n    out = {}\n    for ch in text:\n        out[ch] = out.get(ch, 0) + 1\n    return out\n",
        lambda r: [_word(r, "xyzw", 12)], entry="letter_tally", tags=("hashing",),
    ),
    Spec(
        "call-same-letters", "call",
        "Two words are rearrangements of each other when one can be turned into the other by reordering its "
        "letters. Write same_letters(a, b) returning True exactly when a and b are rearrangements of each "
        "other (case-sensitive).",
        "def same_letters(a, b):\n    return sorted(a) == sorted(b)\n",
        lambda r: (lambda w: [w, "".join(r.sample(w, len(w))) if r.random() < 0.5 else _word(r, "abc", 5)])(_word(r, "abc", 5)),
        entry="same_letters", incorrect=("def same_letters(a, b):\n    return set(a) == set(b)\n",), n_tests=8, tags=("strings",),
    ),
    Spec(
        "call-best-window", "call",
        "Given a non-empty list of integers, find the contiguous non-empty slice with the largest total and "
        "return that total. Implement best_window(values).",
        "def best_window(values):\n    best = cur = values[0]\n    for v in values[1:]:\n        cur = max(v, cur + v)\n        best = max(best, cur)\n    return best\n",
        lambda r: [_nums(r, -15, 10, 12)], entry="best_window",
        incorrect=("def best_window(values):\n    pos = [v for v in values if v > 0]\n    return sum(pos) if pos else max(values)\n",),
        label="medium", n_tests=8, tags=("dp",),
    ),
    Spec(
        "call-squeeze-runs", "call",
        "Compress a string by replacing each maximal block of repeated characters with the character "
        "followed by the block length, so 'aaab' becomes 'a3b1'. Write squeeze_runs(s); the empty string "
        "maps to the empty string.",
        "from itertools import groupby\n\n\ndef squeeze_runs(s):\n    return ''.join(f'{ch}{len(list(g))}' for ch, g in groupby(s))\n",
        lambda r: [_word(r, "pq", 12)], entry="squeeze_runs", tags=("strings",),
    ),
    Spec(
        "call-triangle-row", "call",
        "Row 0 of the number triangle is [1]; every later row starts and ends with 1 and each inner entry is "
        "the sum of the two entries above it. Write triangle_row(n) that returns row n as a list.",
        "def triangle_row(n):\n    row = [1]\n    for _ in range(n):\n        row = [1] + [row[i] + row[i + 1] for i in range(len(row) - 1)] + [1]\n    return row\n",
        lambda r: [r.randint(0, 15)], entry="triangle_row", tags=("math",),
    ),
    Spec(
        "call-runner-up", "call",
        "Return the second largest distinct value in a list of integers, or None when the list has fewer "
        "than two distinct values. Implement runner_up(nums).",
        "def runner_up(nums):\n    d = sorted(set(nums))\n    return d[-2] if len(d) >= 2 else None\n",
        lambda r: [_nums(r, 0, 6, 6)], entry="runner_up",
        incorrect=("def runner_up(nums):\n    s = sorted(nums)\n    return s[-2] if len(s) >= 2 else None\n",), n_tests=8, tags=("sorting",),
    ),
    Spec(
        "call-zip-sorted", "call",
        "Both arguments of zip_sorted(left, right) are lists sorted in non-decreasing order. Return one "
        "sorted list holding all elements of both, without calling a sorting routine on the result.",
        "def zip_sorted(left, right):\n    out = []\n    i = j = 0\n    for _ in range(len(left) + len(right)):\n"
        "        if j >= len(right) or (i < len(left) and left[i] <= right[j]):\n            out.append(left[i])\n            i += 1\n"
        "        else:\n            out.append(right[j])\n            j += 1\n    return out\n",
        lambda r: [sorted(_nums(r)), sorted(_nums(r))], entry="zip_sorted", tags=("two pointers",),
    ),
    Spec(
        "call-set-bits", "call",
        "How many 1 digits appear in the binary representation of a non-negative integer n? Write "
        "set_bits(n) answering that question.",
        "def set_bits(n):\n    return bin(n).count('1')\n",
        lambda r: [r.randint(0, 2**40)], entry="set_bits", tags=("bit manipulation",),
    ),
    Spec(
        "call-flatten-deep", "call",
        "A value is either an integer or a list of values, nested to any depth. Write flatten_deep(value) "
        "that returns a flat list of all integers in left-to-right order; a bare integer gives a one-element list.",
        "def flatten_deep(value):\n    if isinstance(value, int):\n        return [value]\n    out = []\n    for v in value:\n        out.extend(flatten_deep(v))\n    return out\n",
        lambda r: [[r.randint(0, 9), [r.randint(0, 9), [r.randint(0, 9)]], [], [[r.randint(0, 9)]]][: r.randint(1, 4)]],
        entry="flatten_deep", tags=("recursion",),
    ),
    Spec(
        "call-word-sizes", "call",
        "Split a sentence on whitespace and report the length of every word, in order. Implement "
        "word_sizes(sentence); a sentence with no words gives an empty list.",
        "def word_sizes(sentence):\n    return [len(w) for w in sentence.split()]\n",
        lambda r: [" ".join(_word(r, "mnop", 6) for _ in range(r.randint(0, 5)))], entry="word_sizes", tags=("strings",),
    ),
    Spec(
        "call-cheapest-climb", "call",
        "Stepping on stair i costs cost[i]. You may start on stair 0 or stair 1 and from any stair move up one "
        "or two stairs; you finish once you are past the last stair. Write cheapest_climb(cost) returning the "
        "minimum total cost. The list has at least two entries.",
        "def cheapest_climb(cost):\n    a, b = 0, 0\n    for i in range(2, len(cost) + 1):\n        a, b = b, min(b + cost[i - 1], a + cost[i - 2])\n    return b\n",
        lambda r: [[r.randint(0, 20) for _ in range(r.randint(2, 10))]], entry="cheapest_climb", label="medium", tags=("dp",),
    ),
    Spec(
        "call-diagonal-total", "call",
        "For a square matrix given as a list of rows, add up the entries on the main diagonal and on the "
        "anti-diagonal, counting the centre entry of an odd-sized matrix only once. Implement diagonal_total(grid).",
        "def diagonal_total(grid):\n    n = len(grid)\n    s = sum(grid[i][i] + grid[i][n - 1 - i] for i in range(n))\n    return s - (grid[n // 2][n // 2] if n % 2 else 0)\n",
        lambda r: (lambda n: [[[r.randint(0, 9) for _ in range(n)] for _ in range(n)]])(r.randint(1, 5)),
        entry="diagonal_total", incorrect=("def diagonal_total(grid):\n    n = len(grid)\n    return sum(grid[i][i] + grid[i][n - 1 - i] for i in range(n))\n",),
        tags=("matrix",),
    ),
    Spec(
        "call-lattice-routes", "call",
        "A robot starts in the top-left cell of a rows by cols board and may only move right or down. Write "
        "lattice_routes(rows, cols) returning the number of distinct routes to the bottom-right cell.",
        "def lattice_routes(rows, cols):\n    dp = [1] * cols\n    for _ in range(1, rows):\n        for j in range(1, cols):\n            dp[j] += dp[j - 1]\n    return dp[-1]\n",
        lambda r: [r.randint(1, 9), r.randint(1, 9)], entry="lattice_routes", label="medium", tags=("dp", "combinatorics"),
    ),
    Spec(
        "call-shared-start", "call",
        "Find the longest string that every word in a non-empty list begins with. Implement "
        "shared_start(words); return an empty string when the words have no common beginning.",
        "def shared_start(words):\n    p = words[0]\n    for w in words[1:]:\n        while not w.startswith(p):\n            p = p[:-1]\n    return p\n",
        lambda r: (lambda base: [[base + _word(r, "ab", 3) for _ in range(r.randint(1, 4))]])(_word(r, "xy", 4)),
        entry="shared_start", tags=("strings",),
    ),
    Spec(
        "call-count-peaks", "call",
        "class Solution: implement countPeaks(self, heights) returning how many indices i with "
        "0 < i < len(heights) - 1 satisfy heights[i - 1] < heights[i] > heights[i + 1].",
        "class Solution:\n    def countPeaks(self, heights):\n        return sum(1 for i in range(1, len(heights) - 1) if heights[i - 1] < heights[i] > heights[i + 1])\n",
        lambda r: [_nums(r, 0, 5, 10)], entry="Solution().countPeaks",
        starter="class Solution:\n    def countPeaks(self, heights):\n        ", tags=("arrays",),
    ),
    # Only three tests: the amplify stage adds generated ones, so verify keeps it.
    Spec(
        "call-vowel-total", "call",
        "Count the vowels a, e, i, o and u (lower-case only) in a word. Implement vowel_total(word).",
        "def vowel_total(word):\n    return sum(ch in 'aeiou' for ch in word)\n",
        lambda r: ["".join(r.choice("abcdeiou") for _ in range(r.randint(1, 9)))], entry="vowel_total", n_tests=3,
    ),
]  # fmt: skip
