"""New test inputs by type-aware mutation of a problem's own inputs (as EvalPlus does for HumanEval).

Call arguments: numbers nudged and pushed to the edges seen in the data, lists grown, shrunk,
shuffled and duplicated, strings edited within their alphabet, nested values alike. What every
original input has in common is kept: argument types, value ranges (a value never goes below the
smallest one seen when none was negative), sortedness, distinct elements, rectangular grids, equal
list lengths and an integer argument that is the length of a list argument. Where the originals
give evidence of a contract it is kept too: integers inside lists seen often stay in the range they
span, and when they take only a few values (a 0/1 grid) they take only those; each column of short
rows ([start, end, inc]) has its own range; a square matrix stays square; relations every original
satisfies between int arguments, lengths, their total, a matrix's cells and the largest value of a
column (`k <= len(a) + len(b)`, `end < length`) and a constant gap between sizes (`n` nodes and
`n - 1` edges) hold for every new input; so do a string argument that is an element of a list
argument (a word of the dictionary), the characters a string starts and ends with, numbers
written in digits (`low <= high`, no leading zero), two integer lists of equal sum (`nums` can be
made `target` by moves that keep the sum; two originals that differ show it) and one string or
list whose elements are all, as often, in another (`t` is `s` shuffled plus a letter; three such
elements over the originals show it).

Trees and linked lists (`tree_node([...])` / `list_node([...])` arguments, decoded as
`valuecodec.TreeValue` / `ListValue`): a linked list's values mutate as a list (kept sorted,
distinct, in range as the originals are); a tree grows and loses leaves, loses a subtree, swaps
children, changes or permutes its values, always as a valid level-order tree with a root. Its
node count is a length in the relations (`k <= number of nodes`); kept where every original
shows it: a binary search tree (values reassigned in order), a complete tree (no holes),
distinct values, a linked list of even length, an int argument that is a node's value; never
empty unless an original is.

Stdio inputs: numbers and tokens mutated in place, so the line structure stays; numbers that count
something (a line's length, the lines that follow) stay fixed, pairs that look like edges are only
reordered; half of the inputs of a test with counted blocks (edge lists, queries) change a block
as a whole, its count and the lines sized by it following (`filters.stdio_structure`). Whether a
mutated input is valid is decided later, by the reference solutions (`filters.amplify`); these
generators only make invalid inputs rare.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from filters.sandbox.valuecodec import (
    ListValue,
    TreeValue,
    Unencodable,
    decode,
    encode,
    list_value,
    tree_value,
)
from filters.stdio_structure import StdioStructure

__all__ = ["CallInputs", "StdioInputs", "input_generator", "is_search_tree", "traversals"]

Path = tuple[Any, ...]
_MAX_LIST = 64  # longest list a mutation grows to (unless the originals hold longer ones)
_MAX_STR = 64
_EVIDENCE = 6  # nested integers seen before the range they span counts as a contract
_FEW_EVIDENCE = 8  # ... and before the few values they take do
_WHOLE_BLOCKS = 0.5  # share of stdio inputs made by rewiring or resizing a block (edge list)
_FEW_VALUES = 3  # at most this many distinct values (0/1 grids, 'X'/'O' codes): draw only those
_NODES = "nodes"  # the path step from a tree or linked list to the list of its values


def _values(v: TreeValue | ListValue) -> list[Any]:
    """A tree's or linked list's node values (level order for a tree)."""
    return [x for x in v.items if x is not None]


def _tree_links(items: tuple[Any, ...]) -> list[list[Any]]:
    """A level-order tree as [value, left index, right index] rows (row 0 the root)."""
    nodes: list[list[Any]] = [[items[0], None, None]]
    i, k = 1, 0
    while k < len(nodes) and i < len(items):
        for side in (1, 2):
            if i < len(items) and items[i] is not None:
                nodes[k][side] = len(nodes)
                nodes.append([items[i], None, None])
            i += 1
        k += 1
    return nodes


def _tree_of(nodes: list[list[Any]], root: int | None = 0) -> TreeValue | None:
    """The TreeValue of linked rows (unreachable rows left out)."""
    if root is None:
        return None
    out: list[Any] = [nodes[root][0]]
    level = [root]
    while level:
        below = []
        for k in level:
            for c in nodes[k][1:]:
                out.append(None if c is None else nodes[c][0])
                if c is not None:
                    below.append(c)
        level = below
    return tree_value(out)


def _inorder(nodes: list[list[Any]]) -> list[int]:
    """Row indices of a linked tree in order (iterative: a degenerate tree is deep)."""
    out: list[int] = []
    stack: list[int] = []
    k: int | None = 0
    while stack or k is not None:
        while k is not None:
            stack.append(k)
            k = nodes[k][1]
        k = stack.pop()
        out.append(k)
        k = nodes[k][2]
    return out


def traversals(v: TreeValue) -> dict[str, tuple[Any, ...]]:
    """A tree's values in preorder, inorder, postorder and level order."""
    nodes = _tree_links(v.items)
    pre: list[Any] = []
    post: list[Any] = []
    stack = [0]
    while stack:  # preorder; the reverse of (node, right, left) order is postorder
        k = stack.pop()
        pre.append(nodes[k][0])
        stack.extend(c for c in (nodes[k][2], nodes[k][1]) if c is not None)
    stack = [0]
    while stack:
        k = stack.pop()
        post.append(nodes[k][0])
        stack.extend(c for c in (nodes[k][1], nodes[k][2]) if c is not None)
    post.reverse()
    return {
        "preorder": tuple(pre),
        "inorder": tuple(nodes[k][0] for k in _inorder(nodes)),
        "postorder": tuple(post),
        "level order": tuple(row[0] for row in nodes),
    }


def is_search_tree(v: TreeValue) -> bool:
    """Values never decrease in order (a search tree; equal values allowed, as in find-mode)."""
    nodes = _tree_links(v.items)
    vals = [nodes[k][0] for k in _inorder(nodes)]
    try:
        return all(a <= b for a, b in zip(vals, vals[1:]))
    except TypeError:
        return False


def _is_full(nodes: list[list[Any]]) -> bool:
    """Every node has no child or two."""
    return all((row[1] is None) == (row[2] is None) for row in nodes)


def _child_order(nodes: list[list[Any]]) -> set[str]:
    """ "min" when every inner node's value is the smallest of its children's, "max" the largest."""
    out = {"min", "max"}
    try:
        for row in nodes:
            kids = [nodes[c][0] for c in row[1:] if c is not None]
            if kids and row[0] != min(kids):
                out.discard("min")
            if kids and row[0] != max(kids):
                out.discard("max")
    except TypeError:
        return set()
    return out


def _leaf_repeats(nodes: list[list[Any]]) -> bool:
    """Whether two leaves of the tree hold the same value."""
    keys = [_key(row[0]) for row in nodes if row[1] is None and row[2] is None]
    return len(set(keys)) < len(keys)


def _leaf_values(nodes: list[list[Any]]) -> tuple[set[str], set[str]]:
    """The values (as keys) at leaves and at inner nodes."""
    leaves: set[str] = set()
    inner: set[str] = set()
    for row in nodes:
        (leaves if row[1] is None and row[2] is None else inner).add(_key(row[0]))
    return leaves, inner


@dataclass
class _Stats:
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

    def see(self, v: Any) -> None:
        self.types.add(type(v))
        if type(v) in (TreeValue, ListValue):
            n = len(v)
            self.min_len = n if self.min_len is None else min(self.min_len, n)
            self.max_len = n if self.max_len is None else max(self.max_len, n)
        if type(v) is TreeValue and len(v) > 1:
            self.bst &= is_search_tree(v)
            self.bst_evidence += len(v) > 2
            self.complete &= None not in v.items
            self.complete_evidence += len(v) > 2
            nodes = _tree_links(v.items)
            self.full &= _is_full(nodes)
            self.child_order &= _child_order(nodes)
            self.inner_nodes += sum(row[1] is not None or row[2] is not None for row in nodes)
            self.leaf_repeats |= _leaf_repeats(nodes)
            leaf_keys, inner_keys = _leaf_values(nodes)
            self.leaf_keys |= leaf_keys
            self.inner_keys |= inner_keys
        if type(v) is int:
            self.count += 1
            if len(self.ints) <= _FEW_VALUES:
                self.ints.add(v)
        if type(v) in (int, float):
            self.lo = v if self.lo is None else min(self.lo, v)
            self.hi = v if self.hi is None else max(self.hi, v)
        if type(v) in (str, list, tuple):
            n = len(v)
            self.min_len = n if self.min_len is None else min(self.min_len, n)
            self.max_len = n if self.max_len is None else max(self.max_len, n)
        if type(v) is str:
            self.alphabet.update(v)
            self.bigrams.update(v[i : i + 2] for i in range(len(v) - 1))
            if v:
                self.ends.update(("^" + v[0], v[-1] + "$"))
            self.digits &= v.isdigit()
            self.leading_zero |= v.isdigit() and len(v) > 1 and v[0] == "0"
            if " " in v.strip():
                self.words.update(v.split())
        if type(v) is list:
            if v:
                try:
                    self.first_last.add((_key(v[0]), _key(v[-1])))
                    self.twins.update(_key(a) for a, b in zip(v, v[1:]) if a == b)
                except (Unencodable, TypeError, ValueError):
                    self.first_last.add(("?", "?"))
            self.even &= len(v) % 2 == 0
            self.even_evidence += len(v) >= 2
            self.multiplicities.update(_multiplicities(v))
            try:
                self.sorted_asc &= all(a <= b for a, b in zip(v, v[1:]))
                self.sorted_desc &= all(a >= b for a, b in zip(v, v[1:]))
                self.max_descents = max(self.max_descents, _descents(v))
                self.long_lists += len(v) >= 4
            except TypeError:
                self.sorted_asc = self.sorted_desc = False
                self.max_descents = 1 << 30
            try:
                self.distinct &= len({json.dumps(encode(x), sort_keys=True) for x in v}) == len(v)
            except (Unencodable, TypeError, ValueError):
                self.distinct = False
            inner = {len(x) for x in v if type(x) in (list, str)}
            self.rectangular &= len(inner) <= 1 and all(type(x) in (list, str) for x in v)
            self._rows(v)
        if len(self.samples) < 8 and type(v) not in (list, dict, tuple, TreeValue, ListValue):
            self.samples.append(v)

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
            and len(self.leaf_keys) <= _FEW_VALUES
            and len(self.inner_keys) <= _FEW_VALUES
        ):
            rules.add("leaves")  # fmt: skip
        return rules

    def _rows(self, v: list[Any]) -> None:
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
        if len(short) == len(rows) and len({len(r) for r in rows}) == 1:
            for r in short:
                rel = _row_order(r)
                self.row_order = rel if self.row_order is None else self.row_order & rel
        else:
            self.row_order = set()


def _row_order(row: list[Any]) -> set[tuple[int, int, str]]:
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


def _key(x: Any) -> str:
    return json.dumps(encode(x), sort_keys=True)


def _multiplicities(v: list[Any]) -> set[int]:
    try:
        return set(Counter(_key(x) for x in v).values())
    except (Unencodable, TypeError, ValueError):
        return set()


def _descents(v: list[Any]) -> int:
    return sum(a > b for a, b in zip(v, v[1:]))


def _few_values(st: _Stats) -> bool:
    """Whether the integers at a path take so few values, so often, that they are codes (0/1)."""
    return st.count >= _FEW_EVIDENCE and len(st.ints) <= _FEW_VALUES


def _short_rows(v: list[Any]) -> list[list[Any]]:
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


def _nested_ints(value: Any, path: Path, out: dict[Path, list[int]]) -> None:
    """Integers inside lists and tuples, by path (node ids, indices)."""
    if type(value) in (TreeValue, ListValue):
        _nested_ints(_values(value), path + (_NODES,), out)
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
        return _values(v)
    return []


def _int_list(v: Any) -> bool:
    return type(v) is list and all(type(x) is int for x in v)


def _flat(v: Any) -> bool:
    """A string, or a list of numbers and strings."""
    return type(v) is str or (type(v) is list and all(type(x) in (int, float, str) for x in v))


def _missing(a: Any, b: Any) -> bool:
    """Whether some element of a is not in b as often (a string's characters, a list's items)."""
    return bool(Counter(map(_key, a)) - Counter(map(_key, b)))


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


def _holds(q: dict[str, int], rel: tuple[str, str, str]) -> bool:
    a, op, b = rel
    if a not in q or b not in q:
        return True
    if op.startswith("+"):
        return q[a] + int(op[1:]) == q[b]
    return q[a] < q[b] if op == "<" else q[a] <= q[b] if op == "<=" else q[a] == q[b]


class CallInputs:
    """Mutated argument lists for `call` tests and for assert suites converted to call tests.

    `inputs` are the original tests' `input` texts: a JSON array of positional arguments, or
    (`typed`) the converted form {"args": [...], "kwargs": {...}} in `valuecodec` encoding.
    """

    def __init__(self, inputs: list[str], typed: bool) -> None:
        self.typed = typed
        self.originals = [self._decode(x) for x in inputs]
        self.stats: dict[Path, _Stats] = {}
        for args in self.originals:
            for key, v in args.items():
                self._observe((key,), v)
        self.len_of = self._length_links()
        self.same_len = self._equal_lengths()
        self.members = self._memberships()
        self.equal_sums = self._equal_sums()
        self.contained = self._sub_multisets()
        # relations between int arguments and lengths (`left <= right`, `k <= len(nums)`), and
        # bounds of nested integers (`edges` values below `n`), that every original satisfies
        self.relations = _relations([self._measures(a) for a in self.originals])

    @staticmethod
    def _measures(args: dict[Any, Any]) -> dict[str, int]:
        q = _quantities(args)
        lists = [v for v in args.values() if type(v) in (list, str)]
        if len(lists) > 1:
            q["len total"] = sum(len(v) for v in lists)
        for k, v in args.items():
            if type(v) is list and v and all(type(x) is list for x in v):
                q[f"size {k}"] = sum(len(x) for x in v)  # k <= the cells of a matrix
            for i, col in enumerate(zip(*_short_rows(v))) if type(v) is list else ():
                if all(type(y) is int for y in col):
                    q[f"max {k}#{i}"] = max(col)  # [start, end, inc] rows: end < length
                    q[f"min {k}#{i}"] = min(col)
            nested: dict[Path, list[int]] = {}
            _nested_ints(v, (k,), nested)
            for path, xs in nested.items():
                name = "/".join(map(str, path))
                q[f"max {name}"] = max(xs)
        return q

    # ---- form ------------------------------------------------------------------------------
    def _decode(self, text: str) -> dict[Any, Any]:
        raw = json.loads(text)
        if self.typed:
            args = {i: decode(a) for i, a in enumerate(raw["args"])}
            args.update({k: decode(v) for k, v in raw["kwargs"].items()})
            return args
        if not isinstance(raw, list):
            raise ValueError("a call input must be a JSON array")
        return dict(enumerate(raw))

    def encode(self, args: dict[Any, Any]) -> str:
        """The input text of an argument dict (the inverse of reading an original)."""
        if self.typed:
            pos = [encode(args[k]) for k in sorted(k for k in args if isinstance(k, int))]
            kw = {k: encode(v) for k, v in args.items() if isinstance(k, str)}
            return json.dumps({"args": pos, "kwargs": kw})
        return json.dumps([args[k] for k in sorted(args)])

    # ---- what the originals share ----------------------------------------------------------------
    def _observe(self, path: Path, v: Any) -> None:
        self.stats.setdefault(path, _Stats()).see(v)
        if type(v) is list:
            for x in v:
                self._observe(path + ("[]",), x)
            for row in _short_rows(v):
                for i, y in enumerate(row):
                    self.stats.setdefault(path + ("[]", f"#{i}"), _Stats()).see(y)
        elif type(v) is tuple:
            for i, x in enumerate(v):
                self._observe(path + (i,), x)
        elif type(v) is dict:
            for x in v.values():
                self._observe(path + ("{}",), x)
        elif type(v) in (TreeValue, ListValue):
            self._observe(path + (_NODES,), _values(v))

    def _length_links(self) -> dict[Any, Any]:
        """int argument -> list/str argument whose length it is in every original."""
        links = {}
        keys = set.intersection(*(set(a) for a in self.originals)) if self.originals else set()
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

    def _shared_keys(self) -> list[Any]:
        keys = set.intersection(*(set(a) for a in self.originals)) if self.originals else set()
        return sorted(keys, key=str)

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

    # ---- mutation --------------------------------------------------------------------------
    def generate(self, rng: random.Random, parent: int) -> str | None:
        """One mutated input derived from original `parent`, or None when no valid one came out."""
        args = dict(self.originals[parent])
        keys = [k for k in args if k not in self.len_of]
        if not keys:
            return None
        for _ in range(1 + min(3, int(rng.expovariate(1.0)))):
            k = rng.choice(keys)
            args[k] = self._mutate(args[k], (k,), rng, 0)
        for k, j in self.len_of.items():
            args[k] = len(args[j])
        if any(len(args[a]) != len(args[b]) for a, b in self.same_len):
            return None
        if not self.valid(args):
            return None
        try:
            text = self.encode(args)
        except (Unencodable, TypeError, ValueError):
            return None
        return text

    def valid(self, args: dict[Any, Any]) -> bool:
        """Whether a mutated argument list keeps what the originals share beyond single values."""
        q = self._measures(args)
        if not all(_holds(q, rel) for rel in self.relations):
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
        if any(
            a in args and b in args
            and (not _flat(args[a]) or not _flat(args[b]) or _missing(args[a], args[b]))
            for a, b in self.contained
        ):  # fmt: skip
            return False
        return all(self._shape_ok(v, (k,)) for k, v in args.items())

    def _shape_ok(self, v: Any, path: Path, depth: int = 0) -> bool:
        st = self.stats.get(path)
        if st is None or depth > 6:
            return True
        if v is None and type(None) not in st.types and st.types & {TreeValue, ListValue}:
            return False  # an empty tree or list only where an original has one
        if type(v) is ListValue:
            return self._shape_ok(_values(v), path + (_NODES,), depth + 1)
        if type(v) is TreeValue:
            return self._tree_ok(v, st, path + (_NODES,), depth)
        if type(v) is str and st.digits and st.types == {str}:
            if not v.isdigit() or (len(v) > 1 and v[0] == "0" and not st.leading_zero):
                return False  # a number in digits stays one, without a leading zero
        if type(v) is str and len(v) > 1 and st.bigrams:
            # a pair with punctuation never seen: '..' in a version, '+6' in an expression
            pairs = (v[i : i + 2] for i in range(len(v) - 1))
            if not all(p in st.bigrams or p.isalnum() for p in pairs):
                return False
            # '.110' starts with what no original version starts with
            ends = ("^" + v[0], v[-1] + "$")
            return all(e in st.ends or e.strip("^$").isalnum() for e in ends)
        if type(v) is list:
            if path[-1] == _NODES and st.even and st.even_evidence >= 2 and len(v) % 2:
                return False  # a linked list of even length stays even
            if path[-1] == _NODES and v and st.even_evidence >= 2 and len(st.first_last) == 1:
                if {(_key(v[0]), _key(v[-1]))} != st.first_last:
                    return False  # every original list starts and ends with 0: so do new ones
                ((first, last),) = st.first_last
                if first == last and first not in st.twins:  # ... and 0 never follows 0
                    if any(_key(a) == first and a == b for a, b in zip(v, v[1:])):
                        return False
            if st.long_lists >= 2 and st.max_descents <= 1 and _descents(v) > st.max_descents:
                return False  # a rotated sorted list stays one
            if v and st.multiplicities and not _multiplicities(v) <= st.multiplicities:
                return False  # every value twice but one, and the like
            if v and all(type(x) is list for x in v) and not self._rows_ok(v, st):
                return False
            if st.square and st.square_evidence and any(len(x) != len(v) for x in v):
                return False  # an n x n matrix stays square
            return all(self._shape_ok(x, path + ("[]",), depth + 1) for x in v)
        if type(v) is tuple:
            return all(self._shape_ok(x, path + (i,), depth + 1) for i, x in enumerate(v))
        return True

    def _tree_ok(self, v: TreeValue, st: _Stats, inner: Path, depth: int) -> bool:
        """A tree keeps what every original tree shows (`_Stats.tree_rules`) and distinct values."""
        rules = st.tree_rules()
        nodes = _tree_links(v.items)
        if "bst" in rules and not is_search_tree(v):
            return False
        if "complete" in rules and None in v.items:
            return False
        if "full" in rules and not _is_full(nodes):
            return False
        if rules & {"min", "max"} and not rules & {"min", "max"} & _child_order(nodes):
            return False
        if "leaves" in rules:
            leaves, inner_vals = _leaf_values(nodes)
            if not (leaves <= st.leaf_keys and inner_vals <= st.inner_keys):
                return False
        vals = _values(v)
        values = self.stats.get(inner)
        if values is not None and values.distinct and len({_key(x) for x in vals}) < len(vals):
            return False
        return all(self._shape_ok(x, inner + ("[]",), depth + 2) for x in vals)

    @staticmethod
    def _rows_ok(v: list[list[Any]], st: _Stats) -> bool:
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
                    if len(row) > 1 and not st.row_order <= _row_order(row) | {
                        r for r in st.row_order if r[0] >= len(row) or r[1] >= len(row)
                    }:
                        return False
        except TypeError:
            return False
        return True

    def _range(self, st: _Stats, nested: bool = False) -> tuple[float, float]:
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

    def _mutate(self, v: Any, path: Path, rng: random.Random, depth: int) -> Any:
        st = self.stats.get(path)
        t = type(v)
        if t is bool:
            return not v
        nested = len(path) > 1
        if t is int and st is not None and st.lo is not None:
            if nested and _few_values(st):
                return rng.choice(sorted(st.ints))  # a 0/1 grid stays one
            lo, hi = self._range(st, nested)
            choices = [v + 1, v - 1, int(lo), int(hi), rng.randint(int(lo), int(hi))]
            if st.samples:
                choices.append(rng.choice(st.samples))
            if lo <= 0 <= hi:
                choices.append(0)
            new = rng.choice(choices)
            return int(min(max(new, lo), hi)) if type(new) is int else v
        if t is float and st is not None and st.lo is not None:
            lo, hi = self._range(st)
            new = rng.choice([v * (1 + rng.uniform(-0.5, 0.5)), rng.uniform(lo, hi), lo, hi, v + 1])
            return float(min(max(new, lo), hi))
        if t is str:
            return self._mutate_str(v, st, rng)
        if t is list and depth < 6:
            return self._mutate_list(v, path, st, rng, depth)
        if t is tuple and v and depth < 6:
            i = rng.randrange(len(v))
            return v[:i] + (self._mutate(v[i], path + (i,), rng, depth + 1),) + v[i + 1 :]
        if t is ListValue and depth < 6:
            inner = path + (_NODES,)
            vals = self._mutate_list(list(v.items), inner, self.stats.get(inner), rng, depth + 1)
            return list_value(vals) if vals or self._may_be_empty(st) else v
        if t is TreeValue and st is not None and depth < 6:
            return self._mutate_tree(v, path, st, rng, depth)
        if t is dict and v and depth < 6:
            k = rng.choice(list(v))
            out = dict(v)
            out[k] = self._mutate(v[k], path + ("{}",), rng, depth + 1)
            return out
        return v

    @staticmethod
    def _may_be_empty(st: _Stats | None) -> bool:
        return st is not None and type(None) in st.types

    def _mutate_tree(
        self, v: TreeValue, path: Path, st: _Stats, rng: random.Random, depth: int
    ) -> TreeValue | None:
        """A valid tree near `v`: leaves added or removed, a subtree cut, children swapped, values
        changed or permuted; a search tree gets its values back in order, a complete tree grows
        and shrinks at its last slot."""
        inner = path + (_NODES,)
        elem = inner + ("[]",)
        nodes = _tree_links(v.items)
        count = len(nodes)
        lo = max(st.min_len or 1, 1)
        hi = max(st.max_len or 1, 1)
        hi = min(max(2 * hi + 1, count) if hi < _MAX_LIST else hi, max(_MAX_LIST, hi))
        rules = st.tree_rules()
        complete, bst, full = "complete" in rules, "bst" in rules, "full" in rules
        order = "min" if "min" in rules else "max" if "max" in rules else None
        values = self.stats.get(inner)
        distinct = values is not None and values.distinct
        ops = ["value"] if bst or order else ["value", "permute"]
        if count < hi:
            ops.append("grow")
        if count > lo:
            ops += ["shrink"] if complete or full else ["shrink", "cut"]
        if not complete and count > 1:
            ops.append("mirror")
        if self._may_be_empty(st) and rng.random() < 0.05:
            return None
        op = rng.choice(ops)
        parent = {c: k for k, row in enumerate(nodes) for c in row[1:] if c is not None}
        taken = {_key(row[0]) for row in nodes}

        def new_value(x: Any) -> Any:  # a distinct tree gets a value it does not hold yet
            for _ in range(8 if distinct else 1):
                y = self._mutate(x, elem, rng, depth + 2)
                if _key(y) not in taken:
                    break
            taken.add(_key(y))
            return y

        if op == "value":
            row = nodes[rng.randrange(count)]
            row[0] = new_value(row[0])
        elif op == "permute":
            vals = [row[0] for row in nodes]
            rng.shuffle(vals)
            for row, x in zip(nodes, vals):
                row[0] = x
        elif op == "grow":
            for _ in range(rng.randint(1, max(1, min(hi - count, 3)))):
                if complete:  # the next slot in level order
                    k = (len(nodes) - 1) // 2
                    side = 1 if len(nodes) % 2 else 2
                elif full:  # a leaf gets two children
                    k = rng.choice([k for k, row in enumerate(nodes) if row[1] is None
                                    and (k == 0 or k in parent)])  # fmt: skip
                    for side in (1, 2):
                        parent[len(nodes)] = k
                        nodes[k][side] = len(nodes)
                        nodes.append([new_value(rng.choice(nodes)[0]), None, None])
                    continue
                else:
                    free = [(k, s) for k, row in enumerate(nodes) for s in (1, 2) if row[s] is None
                            and (k == 0 or k in parent)]  # fmt: skip
                    k, side = rng.choice(free)
                parent[len(nodes)] = k
                nodes[k][side] = len(nodes)
                nodes.append([new_value(rng.choice(nodes)[0]), None, None])
        elif op == "shrink":
            for _ in range(rng.randint(1, max(1, min(count - lo, 2)))):
                if complete:
                    last = len(nodes) - 1
                    leaves = [last] if last > 0 else []
                elif full:  # two sibling leaves go
                    twins = [row for row in nodes if row[1] in parent and row[2] in parent
                             and nodes[row[1]][1] is None and nodes[row[1]][2] is None
                             and nodes[row[2]][1] is None and nodes[row[2]][2] is None]  # fmt: skip
                    if not twins:
                        break
                    row = rng.choice(twins)
                    for side in (1, 2):
                        del parent[row[side]]
                        row[side] = None
                    continue
                else:
                    leaves = [k for k in parent if nodes[k][1] is None and nodes[k][2] is None]
                if not leaves:
                    break
                k = rng.choice(leaves)
                row = nodes[parent[k]]
                row[row.index(k, 1)] = None
                del parent[k]
                if complete:
                    nodes.pop()
        elif op == "cut":
            k = rng.choice(list(parent))
            row = nodes[parent[k]]
            row[row.index(k, 1)] = None
        elif op == "mirror":
            row = rng.choice([r for r in nodes if r[1] is not None or r[2] is not None])
            row[1], row[2] = row[2], row[1]
        tree = _tree_of(nodes)
        if tree is None or len(tree) < lo:
            return v
        links = _tree_links(tree.items)
        if "leaves" in rules:  # a leaf takes a leaf's value, an inner node an inner node's
            for row in links:
                keys = st.leaf_keys if row[1] is None and row[2] is None else st.inner_keys
                if _key(row[0]) not in keys:
                    row[0] = decode(json.loads(rng.choice(sorted(keys))))
        try:
            if bst:  # the same shape, the values sorted into it in order
                vals = sorted(row[0] for row in links)
                for k, x in zip(_inorder(links), vals):
                    links[k][0] = x
            if order:  # bottom up (rows are in level order), each inner node its children's min
                pick = min if order == "min" else max
                for row in reversed(links):
                    kids = [links[c][0] for c in row[1:] if c is not None]
                    if kids:
                        row[0] = pick(kids)
        except TypeError:
            return v
        return _tree_of(links)

    def _mutate_str(
        self, v: str, st: _Stats | None, rng: random.Random, fixed: bool = False
    ) -> str:
        alphabet = sorted(st.alphabet) if st and st.alphabet else sorted(set(v))
        if not alphabet:
            return v
        fixed = fixed or (st is not None and st.min_len == st.max_len)
        wordy = st is not None and st.words and all(w.isalpha() for w in st.words)
        if not fixed and wordy and st is not None and " " in v.strip() and rng.random() < 0.6:
            return self._mutate_words(v, sorted(st.words), rng)
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

    @staticmethod
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

    def _mutate_list(
        self, v: list[Any], path: Path, st: _Stats | None, rng: random.Random, depth: int
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
            out[i] = self._mutate_element(out[i], inner, rng, depth, grid)
        elif op == "shuffle":
            rng.shuffle(out)
        elif op == "reverse":
            out.reverse()
        elif op == "grow":
            for _ in range(rng.randint(1, max(1, min(hi - len(out), 4)))):
                new = self._mutate_element(rng.choice(v), inner, rng, depth, grid)
                out.insert(rng.randrange(len(out) + 1), new)
        elif op == "duplicate":
            out.insert(rng.randrange(len(out) + 1), rng.choice(out))
        elif op == "shrink":
            for _ in range(rng.randint(1, max(1, min(len(out) - lo, 3)))):
                del out[rng.randrange(len(out))]
        return self._restore(out, st)

    def _mutate_element(
        self, x: Any, inner: Path, rng: random.Random, depth: int, grid: bool
    ) -> Any:
        """One element of a list; a row of a grid keeps its length (a cell or a character changes)."""
        if grid and type(x) is list and x:
            i = rng.randrange(len(x))
            row = list(x)
            cell = inner + ("[]",)  # a column of [start, end, inc] rows has its own range
            column = inner + (f"#{i}",)
            if column in self.stats and not _few_values(self.stats.get(cell) or _Stats()):
                cell = column
            row[i] = self._mutate(x[i], cell, rng, depth + 2)
            row = self._restore(row, self.stats.get(inner))
            return row if len(row) == len(x) else list(x)  # distinct cells would shrink the row
        if grid and type(x) is str and x:
            return self._mutate_str(x, self.stats.get(inner), rng, fixed=True)
        return self._mutate(x, inner, rng, depth + 1)

    @staticmethod
    def _restore(out: list[Any], st: _Stats | None) -> list[Any]:
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
                key = json.dumps(encode(x), sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    kept.append(x)
            out = kept
        return out


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


#: (rng, parent index) -> input text or None; what `filters.amplify` draws candidates from.
Generate = Callable[[random.Random, int], "str | None"]
