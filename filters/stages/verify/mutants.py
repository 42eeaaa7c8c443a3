"""AST mutants of a correct program, to measure how strong a test suite is.

Each mutant changes one thing: a flipped comparison, an off-by-one constant, a swapped operator,
a dropped statement, `and` for `or`, `break` for `continue`. Tests that reject most mutants are
strong; tests that accept them leave a reward open to wrong programs.

Mutants are made only in code that can run. `focus` (an entry point: `name` or
`Solution().method`) limits them to the function (or the whole class) it names and the
module-level functions and classes that names, transitively; without one (a stdio program) to
the module's own statements and what they name. A reference that ships helpers it never calls
(LeetCodeDataset's carry `ListNode`, `TreeNode`, `is_same_tree`...; contest solutions carry
unused template functions) would otherwise give mutants no test can kill.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable

from filters.tools import python_ast

__all__ = [
    "mutation_sites",
    "generate_mutants",
    "reachable_nodes",
    "mutants_of",
    "MUTATED_LANGUAGES",
]

#: the languages mutants are made in (C++: `filters.stages.verify.cpp_mutants`, token mutants)
MUTATED_LANGUAGES = ("python", "cpp")

_CMP: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_BIN: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitOr,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
}
_KEEP_STMTS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Global,
    ast.Nonlocal,
    ast.Pass,
)

#: (index of the node in ast.walk order, description, function that mutates that node in place)
Site = tuple[int, str, Callable[[ast.AST], None]]


def _sites_of(node: ast.AST) -> list[tuple[str, Callable[[ast.AST], None]]]:
    out: list[tuple[str, Callable[[ast.AST], None]]] = []
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in _CMP:

                def flip(n: ast.AST, i: int = i) -> None:
                    n.ops[i] = _CMP[type(n.ops[i])]()  # type: ignore[attr-defined]

                out.append((f"flip {type(op).__name__}", flip))
    elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _BIN:

        def swap(n: ast.AST) -> None:
            n.op = _BIN[type(n.op)]()  # type: ignore[attr-defined]

        out.append((f"swap {type(node.op).__name__}", swap))
    elif isinstance(node, ast.BoolOp):

        def andor(n: ast.AST) -> None:
            n.op = ast.Or() if isinstance(n.op, ast.And) else ast.And()  # type: ignore[attr-defined]

        out.append(("and/or", andor))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        for d in (1, -1):

            def shift(n: ast.AST, d: int = d) -> None:
                n.value += d  # type: ignore[attr-defined]

            out.append((f"constant {node.value}{d:+d}", shift))
    elif isinstance(node, ast.Break):
        out.append(("break->continue", lambda n: setattr(n, "_replace_with", ast.Continue())))
    elif isinstance(node, ast.Continue):
        out.append(("continue->break", lambda n: setattr(n, "_replace_with", ast.Break())))
    for field in ("body", "orelse"):
        body = getattr(node, field, None)
        if isinstance(body, list) and len(body) > 1:
            for j, stmt in enumerate(body):
                if isinstance(stmt, _KEEP_STMTS) or (
                    j == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                ):
                    continue

                def drop(n: ast.AST, field: str = field, j: int = j) -> None:
                    getattr(n, field)[j] = ast.Pass()

                out.append((f"drop line {getattr(stmt, 'lineno', '?')}", drop))
    return out


def mutation_sites(code: str) -> list[tuple[int, str]]:
    """Every single mutation of `code`, as (node index, description); [] if it does not parse."""
    try:
        tree = python_ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [(k, desc) for k, node in enumerate(ast.walk(tree)) for desc, _ in _sites_of(node)]


class _Replace(ast.NodeTransformer):
    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        return getattr(node, "_replace_with", node)


def _apply(code: str, k: int, which: int) -> str | None:
    tree = python_ast.parse(code)
    node = next(n for i, n in enumerate(ast.walk(tree)) if i == k)
    _sites_of(node)[which][1](node)
    tree = _Replace().visit(tree)
    try:
        return ast.unparse(ast.fix_missing_locations(tree))
    except (ValueError, RecursionError):
        return None


def reachable_nodes(tree: ast.Module, focus: str | None) -> set[int] | None:
    """ids of the nodes that can run (see the module docstring); None = all.

    With an entry point: the function or class it names and what they name, transitively (None
    when it names nothing defined at module level). Without one (a stdio program): the module's
    own statements and the functions and classes they name, transitively (None when the module
    only defines things).
    """
    defs = {
        d.name: d
        for d in tree.body
        if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    top = [st for st in tree.body if st not in defs.values()]
    runs = [
        st
        for st in top
        if not isinstance(st, (ast.Import, ast.ImportFrom))
        and not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))
    ]
    if not focus and not runs:
        return None  # a library of functions: any of them may be called
    if focus:
        name = focus.split("(")[0].split(".")[0].strip()
        if name not in defs:
            return None
        roots: list[ast.AST] = [defs[name]]
    else:
        roots = [tree]  # the module node owns the top-level statements (their drop mutants)
    seen: set[str] = set()
    todo = [n.id for r in ([defs[name]] if focus else top) for n in ast.walk(r)
            if isinstance(n, ast.Name) and n.id in defs]  # fmt: skip
    if focus:
        todo.append(name)
    while todo:
        cur = todo.pop()
        if cur in seen:
            continue
        seen.add(cur)
        todo.extend(n.id for n in ast.walk(defs[cur]) if isinstance(n, ast.Name) and n.id in defs)
    nodes = {id(n) for d in seen for n in ast.walk(defs[d])}
    nodes.update(id(n) for st in ([] if focus else top) for n in ast.walk(st))
    nodes.update(id(r) for r in roots)
    return nodes


def generate_mutants(code: str, n: int = 8, seed: int = 0, focus: str | None = None) -> list[str]:
    """Up to `n` distinct single-mutation variants of `code`, chosen deterministically by `seed`,
    in code that can run (`focus`: the code that entry point reaches)."""
    try:
        tree = python_ast.parse(code)
        original = ast.unparse(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    allowed = reachable_nodes(tree, focus)
    sites: list[tuple[int, int]] = []
    for k, node in enumerate(ast.walk(tree)):
        if allowed is None or id(node) in allowed:
            sites.extend((k, w) for w in range(len(_sites_of(node))))
    random.Random(seed).shuffle(sites)
    out: list[str] = []
    seen = {original}
    for k, w in sites:
        if len(out) >= n:
            break
        src = _apply(code, k, w)
        if src is not None and src not in seen:
            seen.add(src)
            out.append(src)
    return out


def mutants_of(
    code: str, language: str, n: int = 8, seed: int = 0, focus: str | None = None
) -> list[str]:
    """Up to `n` mutants of `code` in its `language`: Python's from the AST (`focus`: the entry
    point they stay within), C++'s from its tokens (within what `main` reaches); none in a
    language no mutants are made in."""
    if language == "python":
        return generate_mutants(code, n, seed, focus)
    if language == "cpp":
        from filters.stages.verify.cpp_mutants import generate_cpp_mutants

        return generate_cpp_mutants(code, n, seed)
    return []
