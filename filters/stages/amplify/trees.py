"""Binary trees and linked lists as values: links, traversals and the shapes a tree has.

`filters.sandbox.valuecodec` carries LeetCode's `TreeNode` / `ListNode` across the sandbox boundary
as `TreeValue` (level-order values, None for a missing child) and `ListValue` (the values in
order); that module is stdlib only and loaded by the sandbox's worker too, so what the parent
alone needs about those values lives here: a tree as linked rows `[value, left, right]` and back,
its traversals, and the shapes the input generator keeps (a search tree, a full tree, each inner
node the smallest or largest of its children, the values at leaves).
"""

from __future__ import annotations

import json
from typing import Any

from filters.sandbox.valuecodec import ListValue, TreeValue, encode, tree_value

__all__ = [
    "child_order",
    "inorder",
    "is_full",
    "is_leaf",
    "is_search_tree",
    "leaf_repeats",
    "leaf_values",
    "node_values",
    "traversals",
    "tree_links",
    "tree_of",
    "value_key",
]

#: A tree as rows [value, left row index or None, right row index or None], row 0 the root.
Links = list[list[Any]]


def value_key(x: Any) -> str:
    """A value's canonical text: equal values, equal keys (sets of values that are not hashable)."""
    return json.dumps(encode(x), sort_keys=True)


def node_values(v: TreeValue | ListValue) -> list[Any]:
    """A tree's or linked list's node values (level order for a tree)."""
    return [x for x in v.items if x is not None]


def tree_links(items: tuple[Any, ...]) -> Links:
    """A level-order tree as [value, left index, right index] rows (row 0 the root)."""
    nodes: Links = [[items[0], None, None]]
    i, k = 1, 0
    while k < len(nodes) and i < len(items):
        for side in (1, 2):
            if i < len(items) and items[i] is not None:
                nodes[k][side] = len(nodes)
                nodes.append([items[i], None, None])
            i += 1
        k += 1
    return nodes


def tree_of(nodes: Links, root: int | None = 0) -> TreeValue | None:
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


def inorder(nodes: Links) -> list[int]:
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


def _depth_first(nodes: Links, first: int, second: int) -> list[Any]:
    """Values in the order a stack visits them, pushing child `first` before child `second`."""
    out: list[Any] = []
    stack = [0]
    while stack:
        k = stack.pop()
        out.append(nodes[k][0])
        stack.extend(c for c in (nodes[k][first], nodes[k][second]) if c is not None)
    return out


def traversals(v: TreeValue) -> dict[str, tuple[Any, ...]]:
    """A tree's values in preorder, inorder, postorder and level order."""
    nodes = tree_links(v.items)
    pre = _depth_first(nodes, 2, 1)
    post = _depth_first(nodes, 1, 2)  # (node, right, left) order, reversed
    post.reverse()
    return {
        "preorder": tuple(pre),
        "inorder": tuple(nodes[k][0] for k in inorder(nodes)),
        "postorder": tuple(post),
        "level order": tuple(row[0] for row in nodes),
    }


def is_search_tree(v: TreeValue) -> bool:
    """Values never decrease in order (a search tree; equal values allowed, as in find-mode)."""
    nodes = tree_links(v.items)
    vals = [nodes[k][0] for k in inorder(nodes)]
    try:
        return all(a <= b for a, b in zip(vals, vals[1:]))
    except TypeError:
        return False


def is_full(nodes: Links) -> bool:
    """Every node has no child or two."""
    return all((row[1] is None) == (row[2] is None) for row in nodes)


def is_leaf(row: list[Any]) -> bool:
    """Whether a linked row has no child."""
    return row[1] is None and row[2] is None


def child_order(nodes: Links) -> set[str]:
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


def leaf_repeats(nodes: Links) -> bool:
    """Whether two leaves of the tree hold the same value."""
    keys = [value_key(row[0]) for row in nodes if is_leaf(row)]
    return len(set(keys)) < len(keys)


def leaf_values(nodes: Links) -> tuple[set[str], set[str]]:
    """The values (as keys) at leaves and at inner nodes."""
    leaves: set[str] = set()
    inner: set[str] = set()
    for row in nodes:
        (leaves if is_leaf(row) else inner).add(value_key(row[0]))
    return leaves, inner
