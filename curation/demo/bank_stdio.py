"""Demo problems judged on standard input and output (original, written for codemix)."""

from __future__ import annotations

import random
from dataclasses import replace

from curation.demo.spec import Spec

__all__ = ["STDIO", "ROUND_LETTERS"]


def _ints(rng: random.Random, n: int, lo: int, hi: int) -> str:
    return " ".join(str(rng.randint(lo, hi)) for _ in range(n))


def _sum_evens(rng: random.Random) -> str:
    n = rng.randint(1, 12)
    return f"{n}\n{_ints(rng, n, -50, 50)}\n"


def _reverse_words(rng: random.Random) -> str:
    words = ["lamp", "river", "stone", "cloud", "amber", "quiet", "north", "maple", "ferry", "ink"]
    return " ".join(rng.choice(words) for _ in range(rng.randint(1, 8))) + "\n"


def _grid(rng: random.Random) -> str:
    r, c = rng.randint(1, 7), rng.randint(1, 7)
    rows = ["".join(rng.choice("#..") for _ in range(c)) for _ in range(r)]
    return f"{r} {c}\n" + "\n".join(rows) + "\n"


def _coins(rng: random.Random) -> str:
    q = rng.randint(1, 5)
    return f"{q}\n" + "\n".join(str(rng.randint(0, 300)) for _ in range(q)) + "\n"


def _gcd_pairs(rng: random.Random) -> str:
    q = rng.randint(1, 5)
    return (
        f"{q}\n"
        + "\n".join(f"{rng.randint(1, 10**6)} {rng.randint(1, 10**6)}" for _ in range(q))
        + "\n"
    )


def _range_sums(rng: random.Random) -> str:
    n, q = rng.randint(1, 10), rng.randint(1, 5)
    qs = []
    for _ in range(q):
        a, b = sorted((rng.randint(1, n), rng.randint(1, n)))
        qs.append(f"{a} {b}")
    return f"{n} {q}\n{_ints(rng, n, -100, 100)}\n" + "\n".join(qs) + "\n"


def _brackets(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 4)):
        s = "".join(rng.choice("()[]{}") for _ in range(rng.randint(1, 10)))
        if rng.random() < 0.5:
            s = rng.choice(["()", "[()]", "{[]}()", "(([]))", "([)]", ")(", "}{[]"])
        lines.append(s)
    return f"{len(lines)}\n" + "\n".join(lines) + "\n"


def _runs(rng: random.Random) -> str:
    return "".join(rng.choice("aab") for _ in range(rng.randint(1, 20))) + "\n"


def _matrix(rng: random.Random) -> str:
    r, c = rng.randint(1, 4), rng.randint(1, 4)
    return f"{r} {c}\n" + "\n".join(_ints(rng, c, 0, 9) for _ in range(r)) + "\n"


def _prime_counts(rng: random.Random) -> str:
    q = rng.randint(1, 4)
    return f"{q}\n" + "\n".join(str(rng.randint(1, 2000)) for _ in range(q)) + "\n"


def _caesar(rng: random.Random) -> str:
    text = "".join(rng.choice("abcxyz XYZ!") for _ in range(rng.randint(1, 20)))
    return f"{rng.randint(0, 60)}\n{text}\n"


def _stairs(rng: random.Random) -> str:
    return f"{rng.randint(1, 500)}\n"


def _intervals(rng: random.Random) -> str:
    n = rng.randint(1, 6)
    rows = []
    for _ in range(n):
        a = rng.randint(0, 30)
        rows.append(f"{a} {a + rng.randint(1, 8)}")
    return f"{n}\n" + "\n".join(rows) + "\n"


def _kth(rng: random.Random) -> str:
    n = rng.randint(1, 10)
    return f"{n} {rng.randint(1, n)}\n{_ints(rng, n, -20, 20)}\n"


def _digital_root(rng: random.Random) -> str:
    return f"{rng.randint(0, 10**18)}\n"


def _staircase_pattern(rng: random.Random) -> str:
    return f"{rng.randint(1, 6)}\n"


STDIO: list[Spec] = [
    Spec(
        "stdio-sum-evens", "stdio",
        "A sensor logs a series of readings and we only trust the even ones. The first line holds n, "
        "the number of readings; the second line holds the n readings, separated by spaces. Print the "
        "sum of the readings that are even numbers (negative readings count too). Print 0 if none are even.",
        "n = int(input())\nvals = list(map(int, input().split()))\nprint(sum(v for v in vals if v % 2 == 0))\n",
        _sum_evens, incorrect=("n = int(input())\nvals = list(map(int, input().split()))\nprint(sum(v for v in vals if v > 0 and v % 2 == 0))\n",),
        tags=("math",),
    ),
    Spec(
        "stdio-reverse-words", "stdio",
        "You are given a single line made of lowercase words separated by single spaces. Output the same "
        "words in the opposite order, still separated by single spaces. The letters inside each word keep "
        "their order; only the sequence of words is flipped.",
        "print(' '.join(input().split()[::-1]))\n", _reverse_words, tags=("strings",),
    ),
    Spec(
        "stdio-grid-blobs", "stdio",
        "A map is drawn on an r by c grid where '#' marks land and '.' marks water. Two land cells belong "
        "to the same island when they share a side (diagonal contact does not count). The first line gives r "
        "and c, then r lines of the grid follow. Print how many islands the map contains.",
        "import sys\nfrom collections import deque\n"
        "data = sys.stdin.read().split()\nr, c = int(data[0]), int(data[1])\ng = data[2:2 + r]\n"
        "seen = [[False] * c for _ in range(r)]\ncount = 0\n"
        "for i in range(r):\n    for j in range(c):\n        if g[i][j] == '#' and not seen[i][j]:\n"
        "            count += 1\n            seen[i][j] = True\n            dq = deque([(i, j)])\n"
        "            while dq:\n                x, y = dq.popleft()\n"
        "                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):\n"
        "                    a, b = x + dx, y + dy\n"
        "                    if 0 <= a < r and 0 <= b < c and g[a][b] == '#' and not seen[a][b]:\n"
        "                        seen[a][b] = True\n                        dq.append((a, b))\nprint(count)\n",
        _grid, label="medium", tags=("graphs", "bfs"),
    ),
    Spec(
        "stdio-fewest-coins", "stdio",
        "A vending machine returns change using coins worth 1, 5, 10 and 25 cents, with an unlimited supply "
        "of each. The first line holds q; each of the next q lines holds an amount in cents. For every amount "
        "print, on its own line, the smallest number of coins that add up to exactly that amount.",
        "q = int(input())\nfor _ in range(q):\n    a = int(input())\n    k = 0\n"
        "    for c in (25, 10, 5, 1):\n        k += a // c\n        a %= c\n    print(k)\n",
        _coins, incorrect=("q = int(input())\nfor _ in range(q):\n    a = int(input())\n    print(a // 25 + (a % 25) // 5 + a % 5 + (1 if a % 25 >= 10 else 0))\n",),
        tags=("greedy",),
    ),
    Spec(
        "stdio-gcd-queries", "stdio",
        "Answer several greatest-common-divisor questions. The first line contains q. Each following line "
        "contains two positive integers a and b. For each line print the largest integer that divides both "
        "a and b without remainder.",
        "import math\nq = int(input())\nfor _ in range(q):\n    a, b = map(int, input().split())\n    print(math.gcd(a, b))\n",
        _gcd_pairs, tags=("math", "number theory"),
    ),
    Spec(
        "stdio-range-sums", "stdio",
        "The first line holds n and q. The second line holds an array of n integers, indexed from 1. Each of "
        "the next q lines holds two indices l and r with l <= r. For each query print the total of the "
        "elements at positions l through r inclusive.",
        "import sys\nd = sys.stdin.read().split()\nn, q = int(d[0]), int(d[1])\na = list(map(int, d[2:2 + n]))\n"
        "p = [0]\nfor v in a:\n    p.append(p[-1] + v)\nout = []\npos = 2 + n\n"
        "for _ in range(q):\n    l, r = int(d[pos]), int(d[pos + 1])\n    pos += 2\n    out.append(str(p[r] - p[l - 1]))\n"
        "print('\\n'.join(out))\n",
        _range_sums, incorrect=("import sys\nd = sys.stdin.read().split()\nn, q = int(d[0]), int(d[1])\na = list(map(int, d[2:2 + n]))\n"
        "pos = 2 + n\nfor _ in range(q):\n    l, r = int(d[pos]), int(d[pos + 1])\n    pos += 2\n    print(sum(a[l:r]))\n",),
        tags=("prefix sums",),
    ),
    Spec(
        "stdio-bracket-check", "stdio",
        "Each test line is a string built only from the characters ( ) [ ] { }. A string is well nested when "
        "every opening symbol is closed by the matching symbol in the right order. The first line holds the "
        "number of strings t. For each string print YES if it is well nested and NO otherwise.",
        "t = int(input())\npairs = {')': '(', ']': '[', '}': '{'}\nfor _ in range(t):\n    s = input().strip()\n"
        "    st = []\n    ok = True\n    for ch in s:\n        if ch in '([{':\n            st.append(ch)\n"
        "        elif not st or st.pop() != pairs[ch]:\n            ok = False\n            break\n"
        "    print('YES' if ok and not st else 'NO')\n",
        _brackets, incorrect=("t = int(input())\nfor _ in range(t):\n    s = input().strip()\n"
        "    print('YES' if s.count('(') == s.count(')') and s.count('[') == s.count(']') and s.count('{') == s.count('}') else 'NO')\n",),
        tags=("stack", "strings"),
    ),
    Spec(
        "stdio-longest-streak", "stdio",
        "Read one non-empty string of lowercase letters. A streak is a block of consecutive equal letters. "
        "Print the length of the longest streak in the string.",
        "s = input().strip()\nbest = cur = 1\nfor i in range(1, len(s)):\n    cur = cur + 1 if s[i] == s[i - 1] else 1\n"
        "    best = max(best, cur)\nprint(best)\n",
        _runs, tags=("strings",),
    ),
    Spec(
        "stdio-transpose", "stdio",
        "The first line gives r and c, the size of a table of digits; r lines of c space-separated values "
        "follow. Print the table flipped over its main diagonal: c lines with r values each, separated by "
        "spaces, where line i lists column i of the original table from top to bottom.",
        "r, c = map(int, input().split())\nm = [input().split() for _ in range(r)]\n"
        "for j in range(c):\n    print(' '.join(m[i][j] for i in range(r)))\n",
        _matrix, tags=("implementation",),
    ),
    Spec(
        "stdio-prime-count", "stdio",
        "For each query value x, report how many prime numbers are less than or equal to x. The first line "
        "holds the number of queries; every following line holds one x between 1 and 2000. Print one count "
        "per line.",
        "q = int(input())\nlim = 2001\nsieve = [True] * lim\nsieve[0] = sieve[1] = False\n"
        "for i in range(2, int(lim ** 0.5) + 1):\n    if sieve[i]:\n        for j in range(i * i, lim, i):\n            sieve[j] = False\n"
        "pref = []\nacc = 0\nfor i in range(lim):\n    acc += sieve[i]\n    pref.append(acc)\n"
        "for _ in range(q):\n    print(pref[int(input())])\n",
        _prime_counts, label="medium", tags=("math", "sieve"),
    ),
    Spec(
        "stdio-letter-shift", "stdio",
        "Encode a message by moving every lowercase letter k places forward in the alphabet, wrapping from z "
        "back to a. Upper-case letters, spaces and punctuation are copied unchanged. The first line is k; "
        "the second line is the message. Print the encoded message.",
        "k = int(input())\ns = input()\nprint(''.join(chr((ord(ch) - 97 + k) % 26 + 97) if 'a' <= ch <= 'z' else ch for ch in s))\n",
        _caesar, tags=("strings",),
    ),
    Spec(
        "stdio-hop-ways", "stdio",
        "A frog climbs a ladder of n rungs and may jump up one, two or three rungs at a time. Starting on the "
        "ground, in how many different jump sequences can it land exactly on the top rung? Print the count "
        "modulo 1000000007. The only input line holds n.",
        "n = int(input())\nM = 10**9 + 7\nways = [1] + [0] * n\n"
        "for i in range(1, n + 1):\n    ways[i] = sum(ways[i - s] for s in (1, 2, 3) if i - s >= 0) % M\nprint(ways[n])\n",
        _stairs, incorrect=("n = int(input())\na, b = 1, 1\nfor _ in range(n - 1):\n    a, b = b, (a + b) % (10**9 + 7)\nprint(b)\n",),
        label="medium", tags=("dp",),
    ),
    Spec(
        "stdio-cover-length", "stdio",
        "Several painters each paint a segment of a long fence, given by its start and end coordinates "
        "(start < end). Overlapping parts are painted more than once but count a single time. The first line "
        "holds n, the number of segments; the next n lines hold the segments. Print two numbers: how many "
        "separate painted stretches there are after merging segments that overlap or touch, and the total "
        "painted length.",
        "n = int(input())\nsegs = sorted(tuple(map(int, input().split())) for _ in range(n))\nmerged = []\n"
        "for a, b in segs:\n    if merged and a <= merged[-1][1]:\n        merged[-1][1] = max(merged[-1][1], b)\n"
        "    else:\n        merged.append([a, b])\nprint(len(merged), sum(b - a for a, b in merged))\n",
        _intervals, label="medium", tags=("sorting", "intervals"),
    ),
    Spec(
        "stdio-kth-smallest", "stdio",
        "The first line holds n and k; the second line holds n integers. Sort the integers in increasing "
        "order (duplicates kept) and print the one at position k, counting from 1.",
        "n, k = map(int, input().split())\na = sorted(map(int, input().split()))\nprint(a[k - 1])\n",
        _kth, tags=("sorting",),
    ),
    Spec(
        "stdio-digit-collapse", "stdio",
        "Take a non-negative integer and replace it by the sum of its decimal digits; repeat until a single "
        "digit remains. Print that digit. The input is one integer with up to 19 digits.",
        "s = input().strip()\nfor _ in range(4):\n    if len(s) > 1:\n        s = str(sum(int(ch) for ch in s))\nprint(s)\n",
        _digital_root, tags=("math",),
    ),
    Spec(
        "stdio-star-steps", "stdio",
        "Draw a right-aligned staircase of height h made of '*' characters: row i (counting from 1) has h - i "
        "spaces followed by i stars. The only input line holds h. Print the h rows.",
        "h = int(input())\nfor i in range(1, h + 1):\n    print(' ' * (h - i) + '*' * i)\n",
        _staircase_pattern, tags=("implementation",),
    ),
]  # fmt: skip

#: Contest-style labels: the problem's letter in a Codeforces-style round (A is the easiest).
ROUND_LETTERS: dict[str, str] = {
    "stdio-sum-evens": "A", "stdio-reverse-words": "A", "stdio-grid-blobs": "C", "stdio-fewest-coins": "B",
    "stdio-gcd-queries": "B", "stdio-range-sums": "B", "stdio-bracket-check": "B", "stdio-longest-streak": "A",
    "stdio-transpose": "A", "stdio-prime-count": "C", "stdio-letter-shift": "A", "stdio-hop-ways": "D",
    "stdio-cover-length": "D", "stdio-kth-smallest": "B", "stdio-digit-collapse": "A", "stdio-star-steps": "A",
}  # fmt: skip
STDIO = [replace(s, label=ROUND_LETTERS[s.id]) for s in STDIO]
