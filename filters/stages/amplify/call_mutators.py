"""Mutators per value kind for call arguments, within what the originals at a path share.

`ValueMutator(stats).mutate(value, path, rng, depth)` returns a value near `value`, read against
`stats` (`filters.stages.amplify.call_contract.PathStats` per path): numbers nudged and pushed to the edges seen
in the data (a value never goes below the smallest one seen when none was negative; integers
inside lists seen often enough stay in the range they span, and when they take only a few values,
a 0/1 grid, they take only those); lists grown, shrunk, shuffled and duplicated, kept sorted and
distinct as the originals are; strings edited within their alphabet (sentence-like strings by
words); nested values alike. A linked list's values mutate as a list; a tree grows and loses
leaves, loses a subtree, swaps children, changes or permutes its values, always as a valid
level-order tree with a root (a search tree gets its values back in order, a complete tree grows
and shrinks at its last slot, a full tree by two leaves). Whether the whole argument list still
keeps the contract is `CallContract.holds`'s to say.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from filters.sandbox.valuecodec import ListValue, TreeValue, decode, list_value
from filters.stages.amplify.call_contract import FEW_VALUES, NODES, Path, PathStats
from filters.stages.amplify.trees import Links, inorder, is_leaf, tree_links, tree_of, value_key

__all__ = ["ValueMutator"]

_MAX_LIST = 64  # longest list a mutation grows to (unless the originals hold longer ones)
_MAX_STR = 64
_MAX_DEPTH = 6  # values nested deeper are left as they are
_EVIDENCE = 6  # nested integers seen before the range they span counts as a contract
_FEW_EVIDENCE = 8  # ... and before the few values they take do


def _few_values(st: PathStats) -> bool:
    """Whether the integers at a path take so few values, so often, that they are codes (0/1)."""
    return st.count >= _FEW_EVIDENCE and len(st.ints) <= FEW_VALUES


def _may_be_empty(st: PathStats | None) -> bool:
    return st is not None and type(None) in st.types


def _number_range(st: PathStats, nested: bool = False) -> tuple[float, float]:
    """Values a number may take: up to about twice the largest seen (and down to twice the
    smallest when negatives were seen), never below the smallest seen otherwise. Values inside
    lists seen often enough keep the range they span (bytes stay below 256)."""
    lo, hi = st.lo, st.hi
    assert lo is not None and hi is not None
    if nested and st.count >= _EVIDENCE:
        return lo, hi
    span = max(hi - lo, 1)
    if isinstance(span, int):
        wide_hi = max(hi + max(1, span // 2), 2 * hi + 2)
        wide_lo = lo if lo >= 0 else min(lo - max(1, span // 2), 2 * lo - 2)
    else:
        wide_hi = max(hi + span / 2, 2 * hi)
        wide_lo = lo if lo >= 0 else min(lo - span / 2, 2 * lo)
    return wide_lo, wide_hi


def _mutate_float(v: float, st: PathStats, rng: random.Random) -> float:
    lo, hi = _number_range(st)
    new = rng.choice([v * (1 + rng.uniform(-0.5, 0.5)), rng.uniform(lo, hi), lo, hi, v + 1])
    return float(min(max(new, lo), hi))


def _mutate_words(v: str, vocabulary: list[str], rng: random.Random) -> str:
    """A sentence-like string: words shuffled, dropped, doubled or replaced by seen words."""
    words = v.split()
    op = rng.choice(["shuffle", "drop", "double", "replace", "insert"])
    if op == "shuffle":
        rng.shuffle(words)
    elif op == "drop" and len(words) > 1:
        del words[rng.randrange(len(words))]
    elif op == "double":
        i = rng.randrange(len(words))
        words.insert(i, words[i])
    elif op == "replace":
        words[rng.randrange(len(words))] = rng.choice(vocabulary)
    elif op == "insert" and len(words) < _MAX_STR // 2:
        words.insert(rng.randrange(len(words) + 1), rng.choice(vocabulary))
    return " ".join(words)


def _mutate_str(v: str, st: PathStats | None, rng: random.Random, fixed: bool = False) -> str:
    alphabet = sorted(st.alphabet) if st and st.alphabet else sorted(set(v))
    if not alphabet:
        return v
    fixed = fixed or (st is not None and st.min_len == st.max_len)
    wordy = st is not None and st.words and all(w.isalpha() for w in st.words)
    if not fixed and wordy and st is not None and " " in v.strip() and rng.random() < 0.6:
        return _mutate_words(v, sorted(st.words), rng)
    lo = st.min_len if st and st.min_len is not None else 0
    hi = max(st.max_len or 0, 1) if st else len(v)
    hi = max(hi + max(2, hi // 2), len(v)) if not fixed else hi
    s = list(v)
    op = rng.choice(["replace", "swap"] if fixed or not s else
                    ["replace", "swap", "insert", "delete", "double"])  # fmt: skip
    if op == "replace" and s:
        s[rng.randrange(len(s))] = rng.choice(alphabet)
    elif op == "swap" and len(s) > 1:
        i = rng.randrange(len(s) - 1)
        s[i], s[i + 1] = s[i + 1], s[i]
    elif op == "insert" and len(s) < min(hi, _MAX_STR):
        s.insert(rng.randrange(len(s) + 1), rng.choice(alphabet))
    elif op == "delete" and len(s) > lo:
        del s[rng.randrange(len(s))]
    elif op == "double" and 2 * len(s) <= min(hi, _MAX_STR):
        s = s + s
    return "".join(s)


def _restore(out: list[Any], st: PathStats | None) -> list[Any]:
    """A mutated list made to keep what the originals' lists share: rows whose values read in
    order never decrease, sorted order, distinct elements."""
    if st is None:
        return out
    if st.flat_sorted and st.flat_evidence and out and all(type(x) is list for x in out):
        try:  # rows whose values read in order never decrease: sort the values, keep the rows
            flat = iter(sorted(y for x in out for y in x))
            out = [[next(flat) for _ in x] for x in out]
        except TypeError:
            pass
    try:
        if st.sorted_asc and len(out) > 1:
            out.sort()
        elif st.sorted_desc and len(out) > 1:
            out.sort(reverse=True)
    except TypeError:
        pass
    if st.distinct:
        seen: set[str] = set()
        kept = []
        for x in out:
            key = value_key(x)
            if key not in seen:
                seen.add(key)
                kept.append(x)
        out = kept
    return out


class _TreeEdit:
    """A tree being edited as linked rows: each row's parent, and how a new node gets its value."""

    def __init__(self, nodes: Links, new_value: Callable[[Any], Any], rng: random.Random) -> None:
        self.nodes = nodes
        self.new_value = new_value
        self.rng = rng
        self.parent = {c: k for k, row in enumerate(nodes) for c in row[1:] if c is not None}

    def add_child(self, k: int, side: int) -> None:
        """A new leaf as child `side` (1 left, 2 right) of row k, valued near a random node's."""
        value = self.new_value(self.rng.choice(self.nodes)[0])
        self.parent[len(self.nodes)] = k
        self.nodes[k][side] = len(self.nodes)
        self.nodes.append([value, None, None])

    def detach(self, k: int) -> None:
        """Row k (and what hangs below it) off its parent."""
        row = self.nodes[self.parent[k]]
        row[row.index(k, 1)] = None
        del self.parent[k]

    def reachable(self, k: int) -> bool:
        return k == 0 or k in self.parent

    def grow(self, times: int, complete: bool, full: bool) -> None:
        """Leaves added: at the next level-order slot (complete), two at a leaf (full), or one
        at any free slot."""
        nodes, rng = self.nodes, self.rng
        for _ in range(times):
            if complete:  # the next slot in level order
                self.add_child((len(nodes) - 1) // 2, 1 if len(nodes) % 2 else 2)
            elif full:  # a leaf gets two children
                k = rng.choice([k for k, row in enumerate(nodes)
                                if row[1] is None and self.reachable(k)])  # fmt: skip
                self.add_child(k, 1)
                self.add_child(k, 2)
            else:
                free = [(k, s) for k, row in enumerate(nodes) for s in (1, 2)
                        if row[s] is None and self.reachable(k)]  # fmt: skip
                self.add_child(*rng.choice(free))

    def shrink(self, times: int, complete: bool, full: bool) -> None:
        """Leaves removed: the last one (complete), two siblings (full), or any one."""
        for _ in range(times):
            if full and not complete:
                if not self._drop_twin_leaves():
                    break
                continue
            if complete:
                last = len(self.nodes) - 1
                leaves = [last] if last > 0 else []
            else:
                leaves = [k for k in self.parent if is_leaf(self.nodes[k])]
            if not leaves:
                break
            self.detach(self.rng.choice(leaves))
            if complete:
                self.nodes.pop()

    def _drop_twin_leaves(self) -> bool:
        nodes = self.nodes
        twins = [row for row in nodes if row[1] in self.parent and row[2] in self.parent
                 and is_leaf(nodes[row[1]]) and is_leaf(nodes[row[2]])]  # fmt: skip
        if not twins:
            return False
        row = self.rng.choice(twins)
        for side in (1, 2):
            del self.parent[row[side]]
            row[side] = None
        return True

    def permute(self) -> None:
        vals = [row[0] for row in self.nodes]
        self.rng.shuffle(vals)
        for row, x in zip(self.nodes, vals):
            row[0] = x

    def mirror_one(self) -> None:
        row = self.rng.choice([r for r in self.nodes if not is_leaf(r)])
        row[1], row[2] = row[2], row[1]


def _tree_ops(count: int, lo: int, hi: int, rules: set[str]) -> list[str]:
    """The edits a tree of `count` nodes may take under the rules its originals show."""
    complete, full = "complete" in rules, "full" in rules
    ops = ["value"] if rules & {"bst", "min", "max"} else ["value", "permute"]
    if count < hi:
        ops.append("grow")
    if count > lo:
        ops += ["shrink"] if complete or full else ["shrink", "cut"]
    if not complete and count > 1:
        ops.append("mirror")
    return ops


def _leaves_in_rule(links: Links, st: PathStats, rng: random.Random) -> None:
    """A leaf takes a value seen at leaves, an inner node one seen at inner nodes ("leaves")."""
    for row in links:
        keys = st.leaf_keys if is_leaf(row) else st.inner_keys
        if value_key(row[0]) not in keys:
            row[0] = decode(json.loads(rng.choice(sorted(keys))))


def _order_in_rule(links: Links, rules: set[str]) -> None:
    """Values put back in order: sorted into the same shape (a search tree), or each inner node
    its children's smallest or largest ("min", "max"). TypeError where values do not compare."""
    if "bst" in rules:  # the same shape, the values sorted into it in order
        vals = sorted(row[0] for row in links)
        for k, x in zip(inorder(links), vals):
            links[k][0] = x
    order = "min" if "min" in rules else "max" if "max" in rules else None
    if order:  # bottom up (rows are in level order), each inner node its children's min
        pick = min if order == "min" else max
        for row in reversed(links):
            kids = [links[c][0] for c in row[1:] if c is not None]
            if kids:
                row[0] = pick(kids)


class ValueMutator:
    """Values near the originals', per kind, within what `stats` says the originals share."""

    def __init__(self, stats: dict[Path, PathStats]) -> None:
        self.stats = stats

    def mutate(self, v: Any, path: Path, rng: random.Random, depth: int) -> Any:
        """A value near `v`, which sits at `path`, `depth` levels into an argument."""
        st = self.stats.get(path)
        t = type(v)
        deep = depth >= _MAX_DEPTH
        if t is bool:
            return not v
        if t is int and st is not None and st.lo is not None:
            return self._int(v, st, len(path) > 1, rng)
        if t is float and st is not None and st.lo is not None:
            return _mutate_float(v, st, rng)
        if t is str:
            return _mutate_str(v, st, rng)
        if t is list and not deep:
            return self._list(v, path, st, rng, depth)
        if t is tuple and v and not deep:
            i = rng.randrange(len(v))
            return v[:i] + (self.mutate(v[i], path + (i,), rng, depth + 1),) + v[i + 1 :]
        if t is ListValue and not deep:
            return self._linked_list(v, path, st, rng, depth)
        if t is TreeValue and st is not None and not deep:
            return self._tree(v, path, st, rng, depth)
        if t is dict and v and not deep:
            k = rng.choice(list(v))
            out = dict(v)
            out[k] = self.mutate(v[k], path + ("{}",), rng, depth + 1)
            return out
        return v

    @staticmethod
    def _int(v: int, st: PathStats, nested: bool, rng: random.Random) -> int:
        if nested and _few_values(st):
            return rng.choice(sorted(st.ints))  # a 0/1 grid stays one
        lo, hi = _number_range(st, nested)
        choices = [v + 1, v - 1, int(lo), int(hi), rng.randint(int(lo), int(hi))]
        if st.samples:
            choices.append(rng.choice(st.samples))
        if lo <= 0 <= hi:
            choices.append(0)
        new = rng.choice(choices)
        return int(min(max(new, lo), hi)) if type(new) is int else v

    def _list(
        self, v: list[Any], path: Path, st: PathStats | None, rng: random.Random, depth: int
    ) -> list[Any]:
        lo = st.min_len if st and st.min_len is not None else 0
        hi = max(st.max_len or 0, 1) if st else len(v)
        hi = max(2 * hi + 1, len(v)) if hi < _MAX_LIST else hi
        hi = min(hi, max(_MAX_LIST, st.max_len or 0) if st else _MAX_LIST)
        inner = path + ("[]",)
        out = list(v)
        ops = ["element", "shuffle", "reverse"]
        if out and len(out) < hi:
            ops += ["grow", "duplicate"]
        if len(out) > lo:
            ops.append("shrink")
        op = rng.choice(ops)
        grid = bool(st and st.rectangular and out)
        if op == "element" and out:
            i = rng.randrange(len(out))
            out[i] = self._element(out[i], inner, rng, depth, grid)
        elif op == "shuffle":
            rng.shuffle(out)
        elif op == "reverse":
            out.reverse()
        elif op == "grow":
            for _ in range(rng.randint(1, max(1, min(hi - len(out), 4)))):
                new = self._element(rng.choice(v), inner, rng, depth, grid)
                out.insert(rng.randrange(len(out) + 1), new)
        elif op == "duplicate":
            out.insert(rng.randrange(len(out) + 1), rng.choice(out))
        elif op == "shrink":
            for _ in range(rng.randint(1, max(1, min(len(out) - lo, 3)))):
                del out[rng.randrange(len(out))]
        return _restore(out, st)

    def _element(self, x: Any, inner: Path, rng: random.Random, depth: int, grid: bool) -> Any:
        """One element of a list; a row of a grid keeps its length (a cell or a character changes)."""
        if grid and type(x) is list and x:
            i = rng.randrange(len(x))
            row = list(x)
            cell = inner + ("[]",)  # a column of [start, end, inc] rows has its own range
            column = inner + (f"#{i}",)
            if column in self.stats and not _few_values(self.stats.get(cell) or PathStats()):
                cell = column
            row[i] = self.mutate(x[i], cell, rng, depth + 2)
            row = _restore(row, self.stats.get(inner))
            return row if len(row) == len(x) else list(x)  # distinct cells would shrink the row
        if grid and type(x) is str and x:
            return _mutate_str(x, self.stats.get(inner), rng, fixed=True)
        return self.mutate(x, inner, rng, depth + 1)

    def _linked_list(
        self, v: ListValue, path: Path, st: PathStats | None, rng: random.Random, depth: int
    ) -> ListValue | None:
        inner = path + (NODES,)
        vals = self._list(list(v.items), inner, self.stats.get(inner), rng, depth + 1)
        return list_value(vals) if vals or _may_be_empty(st) else v

    def _tree(
        self, v: TreeValue, path: Path, st: PathStats, rng: random.Random, depth: int
    ) -> TreeValue | None:
        """A valid tree near `v`: leaves added or removed, a subtree cut, children swapped, values
        changed or permuted, then its values put back under the rules its originals show."""
        nodes = tree_links(v.items)
        count = len(nodes)
        lo = max(st.min_len or 1, 1)
        hi = max(st.max_len or 1, 1)
        hi = min(max(2 * hi + 1, count) if hi < _MAX_LIST else hi, max(_MAX_LIST, hi))
        rules = st.tree_rules()
        ops = _tree_ops(count, lo, hi, rules)
        if _may_be_empty(st) and rng.random() < 0.05:
            return None
        op = rng.choice(ops)
        edit = _TreeEdit(nodes, self._fresh_values(nodes, path + (NODES,), rng, depth), rng)
        complete, full = "complete" in rules, "full" in rules
        if op == "value":
            row = nodes[rng.randrange(count)]
            row[0] = edit.new_value(row[0])
        elif op == "permute":
            edit.permute()
        elif op == "grow":
            edit.grow(rng.randint(1, max(1, min(hi - count, 3))), complete, full)
        elif op == "shrink":
            edit.shrink(rng.randint(1, max(1, min(count - lo, 2))), complete, full)
        elif op == "cut":
            edit.detach(rng.choice(list(edit.parent)))
        elif op == "mirror":
            edit.mirror_one()
        tree = tree_of(nodes)
        if tree is None or len(tree) < lo:
            return v
        links = tree_links(tree.items)
        if "leaves" in rules:
            _leaves_in_rule(links, st, rng)
        try:
            _order_in_rule(links, rules)
        except TypeError:
            return v
        return tree_of(links)

    def _fresh_values(
        self, nodes: Links, inner: Path, rng: random.Random, depth: int
    ) -> Callable[[Any], Any]:
        """A value near x for a tree node; in a tree of distinct values, one it does not hold yet."""
        values = self.stats.get(inner)
        distinct = values is not None and values.distinct
        taken = {value_key(row[0]) for row in nodes}

        def new_value(x: Any) -> Any:
            for _ in range(8 if distinct else 1):
                y = self.mutate(x, inner + ("[]",), rng, depth + 2)
                if value_key(y) not in taken:
                    break
            taken.add(value_key(y))
            return y

        return new_value
