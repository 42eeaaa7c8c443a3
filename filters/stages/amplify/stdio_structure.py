"""The structure of a stdin text: counted blocks of rows, edge lists, lines sized by a count, stated bounds.

`StdioInputs` (`filters.stages.amplify.inputgen`) mutates tokens in place; this module finds what a token-level
mutation cannot change without breaking the input, and changes it as a whole:

- a *block*: a run of consecutive lines of 2 or 3 integers (`u v`, `u v w`, `x y` queries) whose
  number is a count given earlier in a short line (`m`, or `n` for `n - 1` tree edges);
- an *edge list*: a block whose first two values lie in [1, n] (or [0, n - 1]) for an `n` read
  earlier; what every edge list of the originals shows is kept (a tree: n - 1 edges and connected;
  connected; no self loops, no repeated edges, `a < b` in each row, unless an original has them);
- a *sized line*: a long line after `n` with exactly `n` values (node values); a permutation of
  1..n stays one.

A block is rewired (a new tree or graph on the same nodes), grown or shrunk (the count before it
changes with it), and an edge list's node count can change too (its sized lines follow, and other
header values that never exceeded `n` stay at most the new `n`). New sizes stay within the bounds
the statement states (`3 ≤ n ≤ 10^{5}`) when it states them for the count's name, and within the
span of the originals otherwise; graphs stay small (at most `MAX_NODES` nodes) so labels stay fast.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

__all__ = ["Block", "StdioStructure", "stated_bounds", "MAX_NODES"]

MAX_NODES = 60  # the most nodes / rows a rewired or resized block gets
_INT = re.compile(r"[+-]?\d+")
_SHORT = 4  # a header line (counts, sizes) has at most this many tokens

Spot = tuple[int, int]  # (line, token)


@dataclass
class Block:
    """Consecutive rows of `width` integers counted by the token at `count` (value rows + offset)."""

    start: int
    rows: int
    width: int
    count: Spot
    offset: int
    nodes: Spot | None = None  # the token n that bounds the first two values of each row
    base: int = 1  # node ids start at 1 or 0

    @property
    def end(self) -> int:
        return self.start + self.rows


@dataclass
class _Traits:
    """What every edge list of the originals shows (True until an original shows otherwise)."""

    tree: bool = True
    connected: bool = True
    simple: bool = True  # no self loops
    unique: bool = True  # no repeated edge
    ordered: bool = True  # a < b in every row
    seen: int = 0


def _ints(toks: list[str]) -> bool:
    return bool(toks) and all(_INT.fullmatch(t) for t in toks)


def find_blocks(lines: list[list[str]]) -> list[Block]:
    """The counted blocks of a parsed input, each with its edge-list bound when it has one."""
    blocks: list[Block] = []
    used: set[int] = set()
    i = 0
    while i < len(lines):
        toks = lines[i]
        if len(toks) not in (2, 3) or not _ints(toks) or i == 0:
            i += 1
            continue
        j = i
        while j < len(lines) and len(lines[j]) == len(toks) and _ints(lines[j]):
            j += 1
        block = _counted(lines, i, j - i, len(toks), used)
        found = [block] if block is not None else _headed(lines, i, j, len(toks))
        for block in found:
            _bound_nodes(lines, block, used)
            blocks.append(block)
            used.update(range(block.start, block.end))
        i = j
    return blocks


def _headed(lines: list[list[str]], i: int, j: int, width: int) -> list[Block]:
    """Blocks inside a run of rows that holds their own headers (`n m` then m edges, per case):
    the same header token counts the rows of every case, and the cases fill the run exactly."""
    for offset in (0, 1):
        for t in range(width - 1, -1, -1):
            out: list[Block] = []
            p = i
            while p < j:
                rows = int(lines[p][t]) - offset
                if rows < 1 or p + 1 + rows > j:
                    break
                out.append(Block(p + 1, rows, width, (p, t), offset))
                p += 1 + rows
            if p == j and out:
                return out
    return []


def _counted(
    lines: list[list[str]], start: int, rows: int, width: int, used: set[int]
) -> Block | None:
    """The block if a short line before it holds its count (the nearest such line)."""
    if rows < 1 or start < 1:
        return None
    for k in range(start - 1, -1, -1):
        toks = lines[k]
        if not toks or k in used or len(toks) > _SHORT:
            continue
        for offset in (0, 1):
            for t, tok in reversed(list(enumerate(toks))):  # `n m`: m counts the rows after
                if not _INT.fullmatch(tok) or (rows == 1 and int(tok) == width):
                    continue  # `2` then `1 2`: a line of n values, not one counted row
                if int(tok) == rows + offset:
                    return Block(start, rows, width, (k, t), offset)
        if k < start - 1 and not _ints(toks):
            break
    return None


def _bound_nodes(lines: list[list[str]], block: Block, used: set[int]) -> None:
    ends = [int(x) for r in lines[block.start : block.end] for x in r[:2]]
    lo, hi = min(ends), max(ends)
    candidates = [
        (k, t)
        for k in range(block.start - 1, -1, -1)
        if k not in used and len(lines[k]) <= _SHORT
        for t in range(len(lines[k]))
        if (k, t) != block.count
    ] + [block.count]  # `4 4`: n is the other 4
    fits = []  # the smallest n that bounds the ids (`12 14`: 12 nodes, 14 edges), nearest first
    for rank, (k, t) in enumerate(candidates):
        tok = lines[k][t]
        if not _INT.fullmatch(tok):
            continue
        n = int(tok)
        if n < 1 or 2 * hi < n:  # node ids reach at least half of n
            continue
        if lo >= 1 and hi <= n:
            fits.append((n, rank, (k, t), 1))
        elif lo >= 0 and hi <= n - 1:
            fits.append((n, rank, (k, t), 0))
    if fits:
        _, _, block.nodes, block.base = min(fits)


def _edges(lines: list[list[str]], b: Block) -> list[tuple[int, int]]:
    return [(int(r[0]), int(r[1])) for r in lines[b.start : b.end]]


def _connected(n: int, base: int, edges: list[tuple[int, int]]) -> bool:
    """Whether the edges join nodes base..base+n-1 into one component. Fewer than n - 1 edges
    never do: answered before anything of size n is made (a count read as n can be 10^9)."""
    if len(edges) < n - 1:
        return False
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    for a, c in edges:
        parent[find(a - base)] = find(c - base)
    return len({find(x) for x in range(n)}) == 1


# ---- stated bounds ------------------------------------------------------------------------------
_LE = r"(?:≤|<=|\\le(?:q)?\b|⩽)"
_POW = r"10\s*\^\s*\{?\s*\d+\s*\}?"
_NUM = rf"-?\s*{_POW}|-?\s*\d+(?:\s*[·⋅*×]\s*(?:{_POW}|\d+))?"
_NAME = r"[A-Za-z](?:_?\{?[A-Za-z0-9]\}?)?"
_BOUND = re.compile(rf"({_NUM})\s*{_LE}\s*({_NAME}(?:\s*,\s*{_NAME})*)\s*{_LE}\s*({_NUM})")


def _number(text: str) -> int | None:
    """`10^{5}`, `2·10^5`, `-10^9`, `100`; a superscript lost in conversion (`3·105`) is read as
    written (315), a narrower bound than meant, so never one a valid input breaks."""
    s = re.sub(r"\s+", "", text)
    sign = -1 if s.startswith("-") else 1
    value = 1
    for part in re.split(r"[·⋅*×]", s.lstrip("-")):
        m = re.fullmatch(r"10\^\{?(\d+)\}?", part)
        if m:
            value *= 10 ** int(m.group(1))
        elif part.isdigit():
            value *= int(part)
        else:
            return None
    return sign * value


def stated_bounds(statement: str | None) -> list[tuple[str, int, int]]:
    """(name, low, high) for each `low ≤ name ≤ high` of the statement's input section, in the
    order the names first appear (`1 ≤ u, v ≤ n` is skipped: its high bound is not a number)."""
    if not statement:
        return []
    m = re.search(r"\bInput\b", statement)
    text = statement[m.start() :] if m else statement
    out = re.search(r"\n\s*Output\b", text)
    text = text[: out.start()] if out else text
    seen: dict[str, tuple[int, int]] = {}
    for b in _BOUND.finditer(text):
        lo, hi = _number(b.group(1)), _number(b.group(3))
        if lo is None or hi is None or lo > hi:
            continue
        for name in re.split(r"\s*,\s*", b.group(2)):
            seen.setdefault(name, (lo, hi))
    return [(k, lo, hi) for k, (lo, hi) in seen.items()]


# ---- the generator ------------------------------------------------------------------------------
class StdioStructure:
    """Whole-block mutations of stdin texts (see the module docstring)."""

    def __init__(self, parsed: list[list[list[str]]], statement: str | None = None) -> None:
        self.parsed = parsed
        self.blocks = [find_blocks(lines) for lines in parsed]
        self.traits = _Traits()
        counts: dict[tuple[int, bool], list[int]] = {}
        nodes: list[int] = []
        for lines, blocks in zip(parsed, self.blocks):
            for b in blocks:
                counts.setdefault((b.width, b.nodes is not None), []).append(b.rows)
                if b.nodes is not None:
                    nodes.append(int(lines[b.nodes[0]][b.nodes[1]]))
                    self._observe(lines, b)
        self.seen_rows = {k: (min(v), max(v)) for k, v in counts.items()}
        self.seen_nodes = (min(nodes), max(nodes)) if nodes else (0, 0)
        self.named = self._named_spots(statement)

    def _observe(self, lines: list[list[str]], b: Block) -> None:
        assert b.nodes is not None
        n = int(lines[b.nodes[0]][b.nodes[1]])
        edges = _edges(lines, b)
        tr = self.traits
        tr.seen += 1
        tr.simple &= all(a != c for a, c in edges)
        tr.unique &= len({frozenset(e) for e in edges}) == len(edges)
        tr.ordered &= all(a < c for a, c in edges)
        conn = _connected(n, b.base, edges)
        tr.connected &= conn
        tr.tree &= conn and len(edges) == n - 1

    def _named_spots(self, statement: str | None) -> dict[Spot, tuple[int, int]]:
        """Stated bounds of the leading short lines' tokens, by name order (`n m` -> n, m)."""
        bounds = stated_bounds(statement)
        spots: dict[Spot, tuple[int, int]] = {}
        if not bounds or not self.parsed:
            return spots
        # the same layout in every original: the tokens of the leading short lines, in order
        heads: list[list[Spot]] = []
        for lines, blocks in zip(self.parsed, self.blocks):
            head: list[Spot] = []
            for k, toks in enumerate(lines):
                if not toks or len(toks) > _SHORT or not _ints(toks):
                    break
                if any(k >= b.start for b in blocks):
                    break
                head.extend((k, t) for t in range(len(toks)))
            heads.append(head)
        shortest = min(heads, key=lambda h: len(h))
        for spot, (_, lo, hi) in zip(shortest, bounds):
            vals = [
                int(lines[spot[0]][spot[1]])
                for lines in self.parsed
                if spot[0] < len(lines) and spot[1] < len(lines[spot[0]])
            ]
            if vals and all(lo <= v <= hi for v in vals):  # a bound an original breaks is misread
                spots[spot] = (lo, hi)
        return spots

    def edge_lines(self, parent: int) -> set[int]:
        """The lines of a parent's edge lists (a token mutation leaves them to `generate`)."""
        return {
            k for b in self.blocks[parent] if b.nodes is not None for k in range(b.start, b.end)
        }

    def sizes(self, parent: int) -> set[Spot]:
        """The counts and node numbers of a parent's blocks (changed only with their block)."""
        out = {b.count for b in self.blocks[parent]}
        return out | {b.nodes for b in self.blocks[parent] if b.nodes is not None}

    def mutable(self, parent: int) -> bool:
        return bool(self.blocks[parent])

    def generate(self, rng: random.Random, parent: int) -> list[list[str]] | None:
        """A parsed input with one block rewired or resized, or None when the parent has none."""
        blocks = self.blocks[parent]
        if not blocks:
            return None
        lines = [list(t) for t in self.parsed[parent]]
        i = rng.randrange(len(blocks))
        b = blocks[i]
        if b.nodes is not None and rng.random() < 0.5:
            self._rewire(lines, b, int(lines[b.nodes[0]][b.nodes[1]]), b.rows, rng)
            return lines
        new_rows = self._new_rows(lines, b, rng)
        if new_rows is None:
            if b.nodes is None:
                return None
            self._rewire(lines, b, int(lines[b.nodes[0]][b.nodes[1]]), b.rows, rng)
            return lines
        n_new, rows_new = new_rows
        old = list(lines[b.start : b.end])
        if b.nodes is not None:
            n_old = int(lines[b.nodes[0]][b.nodes[1]])
            self._set_nodes(lines, b, n_old, n_new, blocks, rng)
        block = [list(r) for r in old[:rows_new]]
        while len(block) < rows_new:
            block.append(self._row_like(old, rng))
        lines[b.start : b.end] = block
        k, t = b.count
        lines[k][t] = str(rows_new + b.offset)
        if b.nodes is not None:
            shifted = Block(b.start, rows_new, b.width, b.count, b.offset, b.nodes, b.base)
            self._rewire(lines, shifted, n_new, rows_new, rng)
        return lines

    # ---- sizes ----------------------------------------------------------------------------------
    def _range(self, spot: Spot, seen: tuple[int, int]) -> tuple[int, int]:
        if spot in self.named:
            lo, hi = self.named[spot]
            return lo, min(hi, MAX_NODES, max(2 * seen[1], seen[1] + 4))
        return seen[0], min(seen[1], MAX_NODES)

    def _new_rows(
        self, lines: list[list[str]], b: Block, rng: random.Random
    ) -> tuple[int, int] | None:
        """(new n, new row count) of a resized block, or None when its sizes cannot change."""
        seen = self.seen_rows[(b.width, b.nodes is not None)]
        if b.nodes is None:
            lo, hi = self._range(b.count, (seen[0] + b.offset, seen[1] + b.offset))
            lo, hi = max(lo - b.offset, 1), hi - b.offset
            if hi <= lo:
                return None
            return 0, rng.randint(lo, hi)
        n = int(lines[b.nodes[0]][b.nodes[1]])
        tr = self.traits
        if b.nodes == b.count:  # n - 1 tree edges, or n rows (each node names others)
            nlo, nhi = self._range(b.nodes, (seen[0] + b.offset, seen[1] + b.offset))
            nlo = max(nlo, 2 if tr.tree else 1)
            if nhi <= nlo:
                return None
            n_new = rng.randint(nlo, nhi)
            return n_new, n_new - b.offset
        # a separate count m: a new n (when its range allows), then m within what fits
        nlo, nhi = self._range(b.nodes, self.seen_nodes)
        n_new = rng.randint(nlo, nhi) if nhi > nlo else n
        mlo, mhi = self._range(b.count, seen)
        most = n_new * (n_new - 1) // 2 if tr.unique and tr.simple else MAX_NODES
        if tr.connected:
            mlo = max(mlo, n_new - 1)
        if tr.tree:
            mlo = mhi = n_new - 1
        mhi = min(mhi, most)
        if mhi < mlo or (n_new == n and mlo == mhi == b.rows):
            return None
        return n_new, rng.randint(mlo, mhi)

    def _set_nodes(
        self, lines: list[list[str]], b: Block, n_old: int, n_new: int, blocks: list[Block],
        rng: random.Random,
    ) -> None:  # fmt: skip
        """n becomes n_new; lines of n values follow (a permutation stays one); header values
        that stayed at most n stay at most n_new."""
        assert b.nodes is not None
        k0, t0 = b.nodes
        lines[k0][t0] = str(n_new)
        for t, tok in enumerate(lines[k0]):
            if t != t0 and _INT.fullmatch(tok) and (k0, t) != b.count and int(tok) > n_new:
                if int(tok) <= n_old:
                    lines[k0][t] = str(n_new)
        stop = min([x.start for x in blocks if x.start > b.end] + [len(lines)])
        for k in range(k0 + 1, stop):
            if b.start <= k < b.end or len(lines[k]) != n_old or n_old <= _SHORT:
                continue
            row = lines[k]
            if _ints(row) and sorted(int(x) for x in row) == list(range(b.base, n_old + b.base)):
                perm = [str(x) for x in range(b.base, n_new + b.base)]
                rng.shuffle(perm)
                lines[k] = perm
            elif n_new <= n_old:
                lines[k] = row[:n_new]
            else:
                lines[k] = row + [rng.choice(row) for _ in range(n_new - n_old)]

    @staticmethod
    def _row_like(rows: list[list[str]], rng: random.Random) -> list[str]:
        """A new row: each column one of that column's values (rewired later for edge lists)."""
        return [rng.choice([r[c] for r in rows]) for c in range(len(rows[0]))]

    # ---- edges ----------------------------------------------------------------------------------
    def _rewire(self, lines: list[list[str]], b: Block, n: int, m: int, rng: random.Random) -> None:
        """New edges on nodes base..n - 1 + base with the originals' traits; weights kept."""
        tr = self.traits
        if n < 1 or m < 0:
            return
        edges: list[tuple[int, int]] = []
        have: set[frozenset[int]] = set()
        if tr.connected or tr.tree:
            order = list(range(n))
            rng.shuffle(order)
            for i in range(1, min(n, m + 1)):
                e = (order[i], order[rng.randrange(i)])
                edges.append(e)
                have.add(frozenset(e))
        tries = 0
        while len(edges) < m and tries < 50 * (m + 1):
            tries += 1
            a, c = rng.randrange(n), rng.randrange(n)
            if tr.simple and a == c:
                continue
            if tr.unique and frozenset((a, c)) in have:
                continue
            edges.append((a, c))
            have.add(frozenset((a, c)))
        if len(edges) < m:
            return  # no graph of this size with these traits: leave the block as it was
        rng.shuffle(edges)
        for r, (a, c) in zip(range(b.start, b.start + m), edges):
            if tr.ordered:
                a, c = min(a, c), max(a, c)
            elif rng.random() < 0.5:
                a, c = c, a
            lines[r][0], lines[r][1] = str(a + b.base), str(c + b.base)
