"""New test inputs by type-aware mutation of a problem's own inputs (as EvalPlus does for HumanEval).

Call arguments (`CallInputs`): the originals' shared contract is inferred
(`filters.stages.amplify.call_contract.CallContract`: argument types, value ranges, sortedness, relations between
arguments, the shapes of trees and linked lists), one to four arguments of an original are mutated
per value kind (`filters.stages.amplify.call_mutators.ValueMutator`: numbers, strings, lists, grids, trees,
linked lists, nested values alike), and the result is kept only when the contract `holds` for it.
Trees and linked lists (`tree_node([...])` / `list_node([...])` arguments, decoded as
`valuecodec.TreeValue` / `ListValue`) are read as linked rows by `filters.stages.amplify.trees`.

Stdio inputs: numbers and tokens mutated in place, so the line structure stays; numbers that count
something (a line's length, the lines that follow) stay fixed, pairs that look like edges are only
reordered; half of the inputs of a test with counted blocks (edge lists, queries) change a block
as a whole, its count and the lines sized by it following (`filters.stages.amplify.stdio_structure`). Whether a
mutated input is valid is decided later, by the reference solutions (`filters.stages.amplify.stage`); these
generators only make invalid inputs rare.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

from filters.sandbox.valuecodec import Unencodable, decode, encode
from filters.stages.amplify.call_contract import CallContract
from filters.stages.amplify.call_mutators import ValueMutator
from filters.stages.amplify.stdio_structure import StdioStructure
from filters.stages.amplify.trees import is_search_tree, traversals

__all__ = ["CallInputs", "StdioInputs", "input_generator", "is_search_tree", "traversals"]

_WHOLE_BLOCKS = 0.5  # share of stdio inputs made by rewiring or resizing a block (edge list)


class CallInputs:
    """Mutated argument lists for `call` tests and for assert suites converted to call tests.

    `inputs` are the original tests' `input` texts: a JSON array of positional arguments, or
    (`typed`) the converted form {"args": [...], "kwargs": {...}} in `valuecodec` encoding.
    An argument list is a dict of position (or keyword) to value.
    """

    def __init__(self, inputs: list[str], typed: bool) -> None:
        self.typed = typed
        self.originals = [self.decode(x) for x in inputs]
        self.contract = CallContract(self.originals)
        self.mutator = ValueMutator(self.contract.stats)

    def decode(self, text: str) -> dict[Any, Any]:
        """The argument dict of an input text."""
        raw = json.loads(text)
        if self.typed:
            args = {i: decode(a) for i, a in enumerate(raw["args"])}
            args.update({k: decode(v) for k, v in raw["kwargs"].items()})
            return args
        if not isinstance(raw, list):
            raise ValueError("a call input must be a JSON array")
        return dict(enumerate(raw))

    def encode(self, args: dict[Any, Any]) -> str:
        """The input text of an argument dict (the inverse of `decode`)."""
        if self.typed:
            pos = [encode(args[k]) for k in sorted(k for k in args if isinstance(k, int))]
            kw = {k: encode(v) for k, v in args.items() if isinstance(k, str)}
            return json.dumps({"args": pos, "kwargs": kw})
        return json.dumps([args[k] for k in sorted(args)])

    def generate(self, rng: random.Random, parent: int) -> str | None:
        """One mutated input derived from original `parent`, or None when no valid one came out."""
        args = dict(self.originals[parent])
        keys = [k for k in args if k not in self.contract.len_of]
        if not keys:
            return None
        for _ in range(1 + min(3, int(rng.expovariate(1.0)))):
            k = rng.choice(keys)
            args[k] = self.mutator.mutate(args[k], (k,), rng, 0)
        self.contract.follow_lengths(args)
        if not self.contract.holds(args):
            return None
        try:
            return self.encode(args)
        except (Unencodable, TypeError, ValueError):
            return None


_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?")


class StdioInputs:
    """Mutated stdin texts: tokens changed in place, line structure and counts kept."""

    def __init__(self, inputs: list[str], statement: str | None = None) -> None:
        self.originals = inputs
        self.parsed = [[ln.split() for ln in text.split("\n")] for text in inputs]
        self.structure = StdioStructure(self.parsed, statement)
        lo: dict[tuple[bool, int], int] = {}
        hi: dict[tuple[bool, int], int] = {}
        alphabet: dict[tuple[bool, int], set[str]] = {}
        for lines in self.parsed:
            for toks in lines:
                for j, tok in enumerate(toks):
                    key = self._key(toks, j)
                    if _INT.fullmatch(tok):
                        v = int(tok)
                        lo[key] = min(lo.get(key, v), v)
                        hi[key] = max(hi.get(key, v), v)
                    elif not _FLOAT.fullmatch(tok):
                        alphabet.setdefault(key, set()).update(tok)
        self.lo, self.hi, self.alphabet = lo, hi, alphabet

    @staticmethod
    def _key(toks: list[str], j: int) -> tuple[bool, int]:
        """Where a token sits: in a short line (by position) or in a long row (any position)."""
        return (len(toks) > 4, j if len(toks) <= 4 else 0)

    @staticmethod
    def _layout(lines: list[list[str]]) -> tuple[set[tuple[int, int]], set[int]]:
        """(numbers that count something, lines that look like edges).

        Counts: the header of a multi-line input (sizes such as `n m`, or the number of cases),
        and a number in a short line equal to the next line's length, to a long line's length or
        dividing the number of lines after it. Edges: lines of 2-3 integers whose first two are
        node ids (at most the largest header number).
        """
        filled = [i for i, t in enumerate(lines) if t]
        header = filled[0] if len(filled) > 1 else None
        fixed = (
            {(header, j) for j, tok in enumerate(lines[header]) if _INT.fullmatch(tok)}
            if header is not None and len(lines[header]) <= 4
            else set()
        )
        top = max((int(lines[i][j]) for i, j in fixed), default=0)
        edges = set()
        for i, toks in enumerate(lines):
            if i != header and len(toks) in (2, 3) and all(_INT.fullmatch(t) for t in toks):
                if 0 <= int(toks[0]) <= top and 0 <= int(toks[1]) <= top:
                    edges.add(i)
        rows = {len(t) for t in lines if len(t) > 4}
        for i, toks in enumerate(lines):
            if i == header or i in edges or len(toks) > 4:
                continue
            after = sum(1 for t in lines[i + 1 :] if t)
            nxt = len(lines[i + 1]) if i + 1 < len(lines) else -1
            for j, tok in enumerate(toks):
                if _INT.fullmatch(tok):
                    v = int(tok)
                    if v in rows or v == nxt or (0 < v <= after and after % v == 0):
                        fixed.add((i, j))
        return fixed, edges

    def generate(self, rng: random.Random, parent: int) -> str | None:
        if self.structure.mutable(parent) and rng.random() < _WHOLE_BLOCKS:
            whole = self.structure.generate(rng, parent)
            if whole is not None:
                return self._text(whole, parent)
        lines = [list(t) for t in self.parsed[parent]]
        fixed, edges = self._layout(lines)
        blocks = self.structure.edge_lines(parent)  # rewired as a whole, never token by token
        edges -= blocks
        fixed |= self.structure.sizes(parent)
        spots = [
            (i, j)
            for i, toks in enumerate(lines)
            for j in range(len(toks))
            if (i, j) not in fixed and i not in edges and i not in blocks
        ]
        if not spots and len(edges) < 2:  # nothing but blocks: a block as a whole, or nothing
            whole = self.structure.generate(rng, parent)
            return None if whole is None else self._text(whole, parent)
        rows = [i for i, t in enumerate(lines) if len(t) > 4 and i not in edges | blocks]
        for _ in range(1 + min(3, int(rng.expovariate(1.0)))):
            pick = rng.random()
            if edges and (not spots or pick < 0.25):
                self._reorder(lines, sorted(edges), rng)
            elif rows and pick > 0.8:
                self._mutate_row(lines[rng.choice(rows)], rng)
            elif spots:
                i, j = rng.choice(spots)
                lines[i][j] = self._mutate_token(lines[i], j, rng)
                if (i, j) in self.structure.named and _INT.fullmatch(lines[i][j]):
                    lo, hi = self.structure.named[(i, j)]  # the bounds the statement states
                    lines[i][j] = str(min(max(int(lines[i][j]), lo), hi))
        return self._text(lines, parent)

    def _text(self, lines: list[list[str]], parent: int) -> str:
        text = "\n".join(" ".join(t) for t in lines)
        original = self.originals[parent]
        return text + "\n" if original.endswith("\n") and not text.endswith("\n") else text

    @staticmethod
    def _reorder(lines: list[list[str]], edges: list[int], rng: random.Random) -> None:
        if rng.random() < 0.5:
            i = rng.choice(edges)
            lines[i][0], lines[i][1] = lines[i][1], lines[i][0]
        else:
            rows = [lines[i] for i in edges]
            rng.shuffle(rows)
            for i, row in zip(edges, rows):
                lines[i] = row

    @staticmethod
    def _mutate_row(toks: list[str], rng: random.Random) -> None:
        """A long row as a whole: shuffled, reversed, sorted, or one value copied over another."""
        op = rng.choice(["shuffle", "reverse", "sort", "copy"])
        if op == "shuffle":
            rng.shuffle(toks)
        elif op == "reverse":
            toks.reverse()
        elif op == "sort" and all(_INT.fullmatch(t) for t in toks):
            toks.sort(key=int, reverse=rng.random() < 0.5)
        else:
            toks[rng.randrange(len(toks))] = rng.choice(toks)

    def _mutate_token(self, toks: list[str], j: int, rng: random.Random) -> str:
        tok = toks[j]
        key = self._key(toks, j)
        if _INT.fullmatch(tok) and key in self.lo:
            v, lo, hi = int(tok), self.lo[key], self.hi[key]
            span = max(hi - lo, 1)
            top = hi + max(1, span // 2)
            bottom = lo if lo >= 0 else lo - max(1, span // 2)
            new = rng.choice([v + 1, v - 1, lo, hi, rng.randint(bottom, top), v * 2, v // 2])
            new = min(max(new, bottom), top)
            if len(toks) > 4 and rng.random() < 0.5:  # a row: another of its own values
                other = rng.choice(toks)
                new = int(other) if _INT.fullmatch(other) else new
            return str(new)
        if _FLOAT.fullmatch(tok):
            decimals = len(tok.split(".")[1]) if "." in tok else 0
            x = float(tok) * (1 + rng.uniform(-0.5, 0.5))
            if float(tok) >= 0:
                x = abs(x)
            return f"{x:.{decimals}f}"
        alphabet = sorted(self.alphabet.get(key) or set(tok))
        s = list(tok)
        if s and alphabet:
            if rng.random() < 0.5 or len(s) < 2:
                s[rng.randrange(len(s))] = rng.choice(alphabet)
            else:
                i = rng.randrange(len(s) - 1)
                s[i], s[i + 1] = s[i + 1], s[i]
        return "".join(s)


def input_generator(problem: dict[str, Any]) -> CallInputs | StdioInputs:
    """The generator for a problem's judged form (`stdio`, `call`, or converted `call` tests)."""
    inputs = [t["input"] for t in problem.get("tests") or []]
    if problem.get("test_type") == "stdio":
        return StdioInputs(inputs, problem.get("statement"))
    if problem.get("test_type") == "call":
        return CallInputs(inputs, typed=bool(problem.get("typed_calls")))
    raise ValueError(f"no input generator for test_type {problem.get('test_type')!r}")


#: (rng, parent index) -> input text or None; what `filters.stages.amplify.stage` draws candidates from.
Generate = Callable[[random.Random, int], "str | None"]
