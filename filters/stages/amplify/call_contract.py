"""The contract a call problem's original argument lists imply, and whether a new one keeps it.

`CallContract(originals)` reads the original argument lists (dicts of argument name or position
to decoded value) and keeps what they all share; `holds(args)` says whether a mutated argument
list keeps it. `PathStats` is what the values at one path (an argument, its elements, a column of
its rows, a tree's node values) have in common; `filters.stages.amplify.call_mutators` reads it to mutate within
the same bounds.

What every original shares is kept: argument types, value ranges, sortedness, distinct elements,
rectangular grids, equal list lengths and an integer argument that is the length of a list
argument. Where the originals give evidence of a contract it is kept too: each column of short
rows ([start, end, inc]) has its own order; a square matrix stays square; relations every
original satisfies between int arguments, lengths, their total, a matrix's cells and the largest
value of a column (`k <= len(a) + len(b)`, `end < length`) and a constant gap between sizes (`n`
nodes and `n - 1` edges) hold for every new input; so do a string argument that is an element of
a list argument (a word of the dictionary), the characters a string starts and ends with, numbers
written in digits (`low <= high`, no leading zero), two integer lists of equal sum (`nums` can be
made `target` by moves that keep the sum; two originals that differ show it) and one string or
list whose elements are all, as often, in another (`t` is `s` shuffled plus a letter; three such
elements over the originals show it). Trees keep what every original tree shows
(`PathStats.tree_rules`): a binary search tree, a complete tree, a full tree, each inner node the
smallest or largest of its children, leaves and inner nodes that take values of their own; a
linked list of even length, one that starts and ends as every original does. A list argument
whose originals had two lengths or more, all multiples of k >= 3, keeps lengths that are (`nums` of
length 3n); a list of pairs that never held a pair and its reverse keeps none ("no repeated
connections": [0, 2] and [2, 0] are one undirected edge twice).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from filters.sandbox.valuecodec import ListValue, TreeValue, Unencodable
from filters.stages.amplify.trees import (
    child_order,
    is_full,
    is_leaf,
    is_search_tree,
    leaf_repeats,
    leaf_values,
    node_values,
    tree_links,
    value_key,
)

__all__ = ["FEW_VALUES", "NODES", "CallContract", "Path", "PathStats", "observe", "short_rows"]

#: Where a value sits in an argument list: (argument, "[]" for a list's elements, a tuple's
#: index, "{}" for a dict's values, "#i" for column i of short rows, NODES for a tree's values).
Path = tuple[Any, ...]
FEW_VALUES = 3  # at most this many distinct values (0/1 grids, 'X'/'O' codes): draw only those
NODES = "nodes"  # the path step from a tree or linked list to the list of its values


@dataclass
class PathStats:
    """What the original values at one path have in common."""

    types: set[type] = field(default_factory=set)
    lo: float | None = None
    hi: float | None = None
    alphabet: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    min_len: int | None = None
    max_len: int | None = None
    sorted_asc: bool = True
    sorted_desc: bool = True
    distinct: bool = True
    rectangular: bool = True
    max_descents: int = 0  # a[i] > a[i + 1] pairs in a list: 0 sorted, 1 a rotated sorted list
    long_lists: int = 0  # lists of 4 or more: evidence that few descents is a rule
    flat_sorted: bool = True  # a list of rows whose values, read in order, never decrease
    flat_evidence: int = 0  # lists of two or more rows seen
    steps: set[int] = field(default_factory=set)  # differences of consecutive rows' lengths
    first_lens: set[int] = field(default_factory=set)
    row_order: set[tuple[int, int, str]] | None = None  # (i, j, op) true in every fixed-size row
    multiplicities: set[int] = field(default_factory=set)  # how often a value recurs in a list
    bigrams: set[str] = field(default_factory=set)  # adjacent character pairs of the strings
    digits: bool = True  # every string was a number written in digits ("50", "100")
    leading_zero: bool = False  # ... and one of two or more digits started with 0
    samples: list[Any] = field(default_factory=list)
    count: int = 0  # integers seen at this path
    ints: set[int] = field(default_factory=set)  # their distinct values (only the first few)
    square: bool = True  # every list of rows had as many rows as columns (an n x n matrix)
    square_evidence: int = 0  # square lists of two or more rows seen
    bst: bool = True  # every tree of two or more nodes was a binary search tree
    bst_evidence: int = 0  # ... and this many had three or more
    complete: bool = True  # every tree was complete (no hole in its level order)
    complete_evidence: int = 0  # trees of three or more nodes seen (for every tree rule)
    full: bool = True  # every node had no child or two
    child_order: set[str] = field(default_factory=lambda: {"min", "max"})  # node = min(children)
    inner_nodes: int = 0  # nodes with a child, in trees of two or more nodes
    leaf_repeats: bool = False  # some tree had two leaves with one value
    leaf_keys: set[str] = field(default_factory=set)  # values at leaves ...
    inner_keys: set[str] = field(default_factory=set)  # ... and at inner nodes
    ends: set[str] = field(default_factory=set)  # first and last characters ("^." / ".$" pairs)
    first_last: set[tuple[str, str]] = field(default_factory=set)  # a list's first, last value
    twins: set[str] = field(default_factory=set)  # values seen twice in a row in a list
    even: bool = True  # every list had an even length (a linked list of twins)
    even_evidence: int = 0  # lists of two or more seen
    lengths: set[int] = field(default_factory=set)  # the lengths of the lists seen here
    #: no list of pairs held one pair and its reverse ([0, 2] and [2, 0]: "no repeated
    #: connections" between nodes), and lists of two or more pairs seen
    pairs_one_way: bool = True
    pairs_evidence: int = 0

    def see(self, v: Any) -> None:
        """Take one original value at this path into account."""
        self.types.add(type(v))
        if type(v) in (TreeValue, ListValue, str, list, tuple):
            self._see_length(len(v))
        if type(v) is TreeValue and len(v) > 1:
            self._see_tree(v)
        if type(v) in (int, float):
            self._see_number(v)
        if type(v) is str:
            self._see_str(v)
        if type(v) is list:
            self._see_list(v)
        if len(self.samples) < 8 and type(v) not in (list, dict, tuple, TreeValue, ListValue):
            self.samples.append(v)

    def _see_length(self, n: int) -> None:
        self.min_len = n if self.min_len is None else min(self.min_len, n)
        self.max_len = n if self.max_len is None else max(self.max_len, n)

    def _see_tree(self, v: TreeValue) -> None:
        self.bst &= is_search_tree(v)
        self.bst_evidence += len(v) > 2
        self.complete &= None not in v.items
        self.complete_evidence += len(v) > 2
        nodes = tree_links(v.items)
        self.full &= is_full(nodes)
        self.child_order &= child_order(nodes)
        self.inner_nodes += sum(not is_leaf(row) for row in nodes)
        self.leaf_repeats |= leaf_repeats(nodes)
        leaf_keys, inner_keys = leaf_values(nodes)
        self.leaf_keys |= leaf_keys
        self.inner_keys |= inner_keys

    def _see_number(self, v: float) -> None:
        if type(v) is int:
            self.count += 1
            if len(self.ints) <= FEW_VALUES:
                self.ints.add(v)
        self.lo = v if self.lo is None else min(self.lo, v)
        self.hi = v if self.hi is None else max(self.hi, v)

    def _see_str(self, v: str) -> None:
        self.alphabet.update(v)
        self.bigrams.update(v[i : i + 2] for i in range(len(v) - 1))
        if v:
            self.ends.update(("^" + v[0], v[-1] + "$"))
        self.digits &= v.isdigit()
        self.leading_zero |= v.isdigit() and len(v) > 1 and v[0] == "0"
        if " " in v.strip():
            self.words.update(v.split())

    def _see_list(self, v: list[Any]) -> None:
        if v:
            try:
                self.first_last.add((value_key(v[0]), value_key(v[-1])))
                self.twins.update(value_key(a) for a, b in zip(v, v[1:]) if a == b)
            except (Unencodable, TypeError, ValueError):
                self.first_last.add(("?", "?"))
        self.even &= len(v) % 2 == 0
        self.even_evidence += len(v) >= 2
        self.lengths.add(len(v))
        self.multiplicities.update(multiplicities(v))
        try:
            self.sorted_asc &= all(a <= b for a, b in zip(v, v[1:]))
            self.sorted_desc &= all(a >= b for a, b in zip(v, v[1:]))
            self.max_descents = max(self.max_descents, descents(v))
            self.long_lists += len(v) >= 4
        except TypeError:
            self.sorted_asc = self.sorted_desc = False
            self.max_descents = 1 << 30
        try:
            self.distinct &= len({value_key(x) for x in v}) == len(v)
        except (Unencodable, TypeError, ValueError):
            self.distinct = False
        inner = {len(x) for x in v if type(x) in (list, str)}
        self.rectangular &= len(inner) <= 1 and all(type(x) in (list, str) for x in v)
        self._see_rows(v)

    def length_step(self) -> int:
        """k when the lists here had two lengths or more, all multiples of k >= 3 (`nums` of
        length 3n); else 1. (A step of 2 comes by chance too often: 1 in 4 pairs of lengths.)"""
        if len(self.lengths) < 2:
            return 1
        step = math.gcd(*self.lengths)
        return step if step >= 3 else 1

    def tree_rules(self) -> set[str]:
        """What every original tree (three or more nodes among them) shows: "bst", "complete";
        with two or more inner nodes seen "full" (0 or 2 children) and "min"/"max" (every inner
        node holds the smallest / largest of its children's values); "leaves" (leaves and inner
        nodes take a few values of their own, a leaf value recurs: 0/1 leaves under 2/3
        operators)."""
        if not self.complete_evidence:
            return set()
        rules = {r for r, ok in (("bst", self.bst), ("complete", self.complete)) if ok}
        if self.inner_nodes >= 2:
            rules |= self.child_order | ({"full"} if self.full else set())
        if (
            self.inner_keys
            and self.leaf_repeats
            and not self.leaf_keys & self.inner_keys
            and len(self.leaf_keys) <= FEW_VALUES
            and len(self.inner_keys) <= FEW_VALUES
        ):
            rules.add("leaves")  # fmt: skip
        return rules

    def _see_rows(self, v: list[Any]) -> None:
        rows = [x for x in v if type(x) is list]
        if len(rows) != len(v) or not rows:
            self.flat_sorted = self.square = False
            return
        flat = [y for x in rows for y in x]
        try:
            if len(rows) > 1:
                self.flat_evidence += 1
                self.flat_sorted &= all(a <= b for a, b in zip(flat, flat[1:]))
        except TypeError:
            self.flat_sorted = False
        self.square &= all(len(x) == len(rows) for x in rows)
        self.square_evidence += len(rows) > 1
        self.first_lens.add(len(rows[0]))
        self.steps.update(len(b) - len(a) for a, b in zip(rows, rows[1:]))
        short = [r for r in rows if 1 < len(r) <= 4 and all(type(y) in (int, float) for y in r)]
        if len(short) == len(rows) > 1 and all(len(r) == 2 for r in rows):
            self.pairs_evidence += 1
            self.pairs_one_way &= not _reversed_pairs(rows)
        if len(short) == len(rows) and len({len(r) for r in rows}) == 1:
            for r in short:
                rel = row_order(r)
                self.row_order = rel if self.row_order is None else self.row_order & rel
        else:
            self.row_order = set()


def _reversed_pairs(rows: list[list[Any]]) -> bool:
    """Whether a list of pairs holds a pair and its reverse, or one pair twice."""
    try:
        return len({tuple(sorted(r)) for r in rows}) < len(rows)
    except TypeError:  # values that do not order or hash: nothing to say
        return False


def observe(stats: dict[Path, PathStats], path: Path, v: Any) -> None:
    """Take an original value at `path`, and every value inside it, into `stats`."""
    stats.setdefault(path, PathStats()).see(v)
    if type(v) is list:
        for x in v:
            observe(stats, path + ("[]",), x)
        for row in short_rows(v):
            for i, y in enumerate(row):
                stats.setdefault(path + ("[]", f"#{i}"), PathStats()).see(y)
    elif type(v) is tuple:
        for i, x in enumerate(v):
            observe(stats, path + (i,), x)
    elif type(v) is dict:
        for x in v.values():
            observe(stats, path + ("{}",), x)
    elif type(v) in (TreeValue, ListValue):
        observe(stats, path + (NODES,), node_values(v))


def row_order(row: list[Any]) -> set[tuple[int, int, str]]:
    """Order relations between the positions of a short row of numbers ([start, end] has 0 < 1)."""
    out = set()
    for i in range(len(row)):
        for j in range(i + 1, len(row)):
            a, b = row[i], row[j]
            out.add((i, j, "<" if a < b else ">" if a > b else "=="))
            if a <= b:
                out.add((i, j, "<="))
            if a >= b:
                out.add((i, j, ">="))
    return out


def multiplicities(v: list[Any]) -> set[int]:
    """How often the values of a list recur (every value twice but one: {1, 2})."""
    try:
        return set(Counter(value_key(x) for x in v).values())
    except (Unencodable, TypeError, ValueError):
        return set()


def descents(v: list[Any]) -> int:
    """Adjacent pairs out of ascending order."""
    return sum(a > b for a, b in zip(v, v[1:]))


def short_rows(v: list[Any]) -> list[list[Any]]:
    """The rows of a list of equally long short rows ([start, end, inc] updates), else []."""
    if v and all(type(x) is list for x in v) and len({len(x) for x in v}) == 1:
        if 2 <= len(v[0]) <= 4:
            return v
    return []


def _quantities(args: dict[Any, Any]) -> dict[str, int]:
    """The integers of an argument list that constraints usually relate: int arguments, lengths."""
    q = {}
    for k, v in args.items():
        if type(v) is int:
            q[f"{k}"] = v
        elif type(v) in (list, str, tuple, TreeValue, ListValue):
            q[f"len {k}"] = len(v)  # a tree's or list's node count
        if type(v) is str and v.isdigit() and len(v) < 19:
            q[f"value {k}"] = int(v)  # low <= high, given as digit strings
    return q


def _measures(args: dict[Any, Any]) -> dict[str, int]:
    """`_quantities` plus the total length, a matrix's cells, a column's largest and smallest
    value, the largest integer at each nested path: every number `_relations` relates."""
    q = _quantities(args)
    lists = [v for v in args.values() if type(v) in (list, str)]
    if len(lists) > 1:
        q["len total"] = sum(len(v) for v in lists)
    for k, v in args.items():
        if type(v) is list and v and all(type(x) is list for x in v):
            q[f"size {k}"] = sum(len(x) for x in v)  # k <= the cells of a matrix
        for i, col in enumerate(zip(*short_rows(v))) if type(v) is list else ():
            if all(type(y) is int for y in col):
                q[f"max {k}#{i}"] = max(col)  # [start, end, inc] rows: end < length
                q[f"min {k}#{i}"] = min(col)
        nested: dict[Path, list[int]] = {}
        _nested_ints(v, (k,), nested)
        for path, xs in nested.items():
            name = "/".join(map(str, path))
            q[f"max {name}"] = max(xs)
    return q


def _nested_ints(value: Any, path: Path, out: dict[Path, list[int]]) -> None:
    """Integers inside lists and tuples, by path (node ids, indices)."""
    if type(value) in (TreeValue, ListValue):
        _nested_ints(node_values(value), path + (NODES,), out)
    elif type(value) in (list, tuple):
        for i, x in enumerate(value):
            sub = path + (("[]",) if type(value) is list else (i,))
            if type(x) is int:
                out.setdefault(sub, []).append(x)
            else:
                _nested_ints(x, sub, out)


def _elements(v: Any) -> list[Any]:
    """What `x in v` means for a membership contract: a list's items, a tree's or list's values."""
    if type(v) is list:
        return v
    if type(v) in (TreeValue, ListValue):
        return node_values(v)
    return []


def _int_list(v: Any) -> bool:
    return type(v) is list and all(type(x) is int for x in v)


def _flat(v: Any) -> bool:
    """A string, or a list of numbers and strings."""
    return type(v) is str or (type(v) is list and all(type(x) in (int, float, str) for x in v))


def _missing(a: Any, b: Any) -> bool:
    """Whether some element of a is not in b as often (a string's characters, a list's items)."""
    return bool(Counter(map(value_key, a)) - Counter(map(value_key, b)))


def _relations(samples: list[dict[str, int]]) -> list[tuple[str, str, str]]:
    """(a, op, b) with op in <, <= that hold in every sample (ties that always hold are `==`)."""
    if not samples:
        return []
    names = sorted(set.intersection(*(set(q) for q in samples)))
    out = []
    for a in names:
        for b in names:
            if a == b:
                continue
            if all(q[a] < q[b] for q in samples):
                out.append((a, "<", b))
            elif all(q[a] <= q[b] for q in samples) and not all(q[a] == q[b] for q in samples):
                out.append((a, "<=", b))
            elif all(q[a] == q[b] for q in samples) and a < b:
                out.append((a, "==", b))
            if len(samples) > 1 and _plain(a) and _plain(b):
                gaps = {q[b] - q[a] for q in samples}
                if len(gaps) == 1 and 0 < (gap := gaps.pop()) <= 2:
                    out.append((a, f"+{gap}", b))  # t is s plus a letter; n nodes, n - 1 edges
    return out


def _plain(name: str) -> bool:
    """An int argument or an argument's length (not a derived max, min or size)."""
    return not name.startswith(("max ", "min ", "size ", "len total", "value "))


def _relation_holds(q: dict[str, int], rel: tuple[str, str, str]) -> bool:
    a, op, b = rel
    if a not in q or b not in q:
        return True
    if op.startswith("+"):
        return q[a] + int(op[1:]) == q[b]
    return q[a] < q[b] if op == "<" else q[a] <= q[b] if op == "<=" else q[a] == q[b]


class CallContract:
    """What every original argument list shares; `holds(args)`: whether a new one keeps it.

    Pairs of arguments (keys of the argument dicts) it found: `len_of` (an int argument that is
    a list argument's length), `same_len`, `members` (a is an element of b), `equal_sums`,
    `contained` (a's elements all in b); `relations` between the numbers `_measures` takes;
    `stats` per path (`PathStats`).
    """

    def __init__(self, originals: list[dict[Any, Any]]) -> None:
        self.originals = originals
        self.stats: dict[Path, PathStats] = {}
        for args in originals:
            for key, v in args.items():
                observe(self.stats, (key,), v)
        self.len_of = self._length_links()
        self.same_len = self._equal_lengths()
        self.members = self._memberships()
        self.equal_sums = self._equal_sums()
        self.contained = self._sub_multisets()
        # relations between int arguments and lengths (`left <= right`, `k <= len(nums)`), and
        # bounds of nested integers (`edges` values below `n`), that every original satisfies
        self.relations = _relations([_measures(a) for a in originals])

    # ---- what the originals share ----------------------------------------------------------
    def _shared_keys(self) -> list[Any]:
        keys = set.intersection(*(set(a) for a in self.originals)) if self.originals else set()
        return sorted(keys, key=str)

    def _length_links(self) -> dict[Any, Any]:
        """int argument -> list/str argument whose length it is in every original."""
        links = {}
        keys = self._shared_keys()  # in a fixed order: the first match is the link
        for k in keys:
            if not all(type(a[k]) is int for a in self.originals):
                continue
            for j in keys:
                if j != k and all(
                    type(a[j]) in (list, str, TreeValue, ListValue) and len(a[j]) == a[k]
                    for a in self.originals
                ):
                    links[k] = j
                    break
        return links

    def _memberships(self) -> list[tuple[Any, Any]]:
        """(a, b): argument a is an element of list argument b in every original (word1 in words)."""
        keys = self._shared_keys()
        pairs = []
        for a in keys:
            for b in keys:
                if a != b and all(
                    type(x[a]) in (str, int) and x[a] in _elements(x[b]) for x in self.originals
                ):
                    pairs.append((a, b))
        return pairs

    def _equal_sums(self) -> list[tuple[Any, Any]]:
        """(a, b): flat integer lists with equal sums in every original, 2+ of them different."""
        keys = self._shared_keys()
        ints = [k for k in keys if all(_int_list(x[k]) for x in self.originals)]
        return [
            (a, b)
            for i, a in enumerate(ints)
            for b in ints[i + 1 :]
            if all(sum(x[a]) == sum(x[b]) for x in self.originals)
            and sum(x[a] != x[b] for x in self.originals) >= 2
        ]

    def _sub_multisets(self) -> list[tuple[Any, Any]]:
        """(a, b): strings or flat lists, a's elements all in b (each at least as often) in every
        original, with 3+ such elements over the originals where a is not b."""
        keys = self._shared_keys()
        seqs = [k for k in keys if all(_flat(x[k]) for x in self.originals)]
        return [
            (a, b)
            for a in seqs
            for b in seqs
            if a != b
            and all(not _missing(x[a], x[b]) for x in self.originals)
            and sum(len(x[a]) for x in self.originals if x[a] != x[b]) >= 3
        ]

    def _equal_lengths(self) -> list[tuple[Any, Any]]:
        keys = self._shared_keys()
        pairs = []
        for i, a in enumerate(keys):
            for b in keys[i + 1 :]:
                if all(
                    type(x[a]) in (list, str)
                    and type(x[b]) in (list, str)
                    and len(x[a]) == len(x[b])
                    for x in self.originals
                ):
                    pairs.append((a, b))
        return pairs

    # ---- whether a new argument list keeps it ----------------------------------------------
    def follow_lengths(self, args: dict[Any, Any]) -> None:
        """Set each int argument that is a list argument's length to that length, in place."""
        for k, j in self.len_of.items():
            args[k] = len(args[j])

    def holds(self, args: dict[Any, Any]) -> bool:
        """Whether an argument list keeps what the originals share (lengths followed first)."""
        if any(len(args[a]) != len(args[b]) for a, b in self.same_len):
            return False
        return self._pairs_hold(args) and all(self._shape_ok(v, (k,)) for k, v in args.items())

    def _pairs_hold(self, args: dict[Any, Any]) -> bool:
        """The relations, memberships, equal sums and sub-multisets between arguments."""
        q = _measures(args)
        if not all(_relation_holds(q, rel) for rel in self.relations):
            return False
        if any(
            a in args and b in args and args[a] not in _elements(args[b]) for a, b in self.members
        ):
            return False
        if any(
            a in args and b in args and (not _int_list(args[a]) or not _int_list(args[b])
                                         or sum(args[a]) != sum(args[b]))
            for a, b in self.equal_sums
        ):  # fmt: skip
            return False
        return not any(
            a in args and b in args
            and (not _flat(args[a]) or not _flat(args[b]) or _missing(args[a], args[b]))
            for a, b in self.contained
        )  # fmt: skip

    def _shape_ok(self, v: Any, path: Path, depth: int = 0) -> bool:
        st = self.stats.get(path)
        if st is None or depth > 6:
            return True
        if v is None and type(None) not in st.types and st.types & {TreeValue, ListValue}:
            return False  # an empty tree or list only where an original has one
        if type(v) is ListValue:
            return self._shape_ok(node_values(v), path + (NODES,), depth + 1)
        if type(v) is TreeValue:
            return self._tree_ok(v, st, path + (NODES,), depth)
        if type(v) is str:
            return _str_ok(v, st)
        if type(v) is list:
            return self._list_ok(v, path, st, depth)
        if type(v) is tuple:
            return all(self._shape_ok(x, path + (i,), depth + 1) for i, x in enumerate(v))
        return True

    def _list_ok(self, v: list[Any], path: Path, st: PathStats, depth: int) -> bool:
        if path[-1] == NODES and not _linked_values_ok(v, st):
            return False
        if st.long_lists >= 2 and st.max_descents <= 1 and descents(v) > st.max_descents:
            return False  # a rotated sorted list stays one
        if v and st.multiplicities and not multiplicities(v) <= st.multiplicities:
            return False  # every value twice but one, and the like
        if v and all(type(x) is list for x in v) and not _rows_ok(v, st):
            return False
        if len(v) % st.length_step():
            return False  # `nums` of length 3n stays so
        pairs = len(v) > 1 and all(type(x) is list and len(x) == 2 for x in v)
        if pairs and st.pairs_one_way and st.pairs_evidence and _reversed_pairs(v):
            return False  # an undirected edge appears once, in either direction
        if st.square and st.square_evidence and any(len(x) != len(v) for x in v):
            return False  # an n x n matrix stays square
        return all(self._shape_ok(x, path + ("[]",), depth + 1) for x in v)

    def _tree_ok(self, v: TreeValue, st: PathStats, inner: Path, depth: int) -> bool:
        """A tree keeps what every original tree shows (`PathStats.tree_rules`) and distinct values."""
        if not _tree_rules_hold(v, st):
            return False
        vals = node_values(v)
        values = self.stats.get(inner)
        if values is not None and values.distinct and len({value_key(x) for x in vals}) < len(vals):
            return False
        return all(self._shape_ok(x, inner + ("[]",), depth + 2) for x in vals)


def _str_ok(v: str, st: PathStats) -> bool:
    """A number in digits stays one, without a leading zero; no character pair or end is new
    unless it is letters and digits."""
    if st.digits and st.types == {str}:
        if not v.isdigit() or (len(v) > 1 and v[0] == "0" and not st.leading_zero):
            return False
    if len(v) > 1 and st.bigrams:
        # a pair with punctuation never seen: '..' in a version, '+6' in an expression
        pairs = (v[i : i + 2] for i in range(len(v) - 1))
        if not all(p in st.bigrams or p.isalnum() for p in pairs):
            return False
        # '.110' starts with what no original version starts with
        ends = ("^" + v[0], v[-1] + "$")
        return all(e in st.ends or e.strip("^$").isalnum() for e in ends)
    return True


def _linked_values_ok(v: list[Any], st: PathStats) -> bool:
    """A linked list's (or tree's) values: an even length and the first and last values stay
    when every original shares them."""
    if st.even and st.even_evidence >= 2 and len(v) % 2:
        return False  # a linked list of even length stays even
    if v and st.even_evidence >= 2 and len(st.first_last) == 1:
        if {(value_key(v[0]), value_key(v[-1]))} != st.first_last:
            return False  # every original list starts and ends with 0: so do new ones
        ((first, last),) = st.first_last
        if first == last and first not in st.twins:  # ... and 0 never follows 0
            if any(value_key(a) == first and a == b for a, b in zip(v, v[1:])):
                return False
    return True


def _tree_rules_hold(v: TreeValue, st: PathStats) -> bool:
    rules = st.tree_rules()
    nodes = tree_links(v.items)
    if "bst" in rules and not is_search_tree(v):
        return False
    if "complete" in rules and None in v.items:
        return False
    if "full" in rules and not is_full(nodes):
        return False
    if rules & {"min", "max"} and not rules & {"min", "max"} & child_order(nodes):
        return False
    if "leaves" in rules:
        leaves, inner_vals = leaf_values(nodes)
        if not (leaves <= st.leaf_keys and inner_vals <= st.inner_keys):
            return False
    return True


def _rows_ok(v: list[list[Any]], st: PathStats) -> bool:
    """Rows keep what they share: a sorted flat reading (non-overlapping intervals), the
    steps between their lengths (a triangle), the order of their positions (start < end)."""
    flat = [y for x in v for y in x]
    try:
        if st.flat_sorted and st.flat_evidence and any(a > b for a, b in zip(flat, flat[1:])):
            return False
        if st.steps and len(st.steps) == 1:
            if len(v) > 1 and {len(b) - len(a) for a, b in zip(v, v[1:])} != st.steps:
                return False
            if len(st.first_lens) == 1 and len(v[0]) not in st.first_lens:
                return False
        if st.row_order:
            for row in v:
                if len(row) > 1 and not st.row_order <= row_order(row) | {
                    r for r in st.row_order if r[0] >= len(row) or r[1] >= len(row)
                }:
                    return False
    except TypeError:
        return False
    return True
