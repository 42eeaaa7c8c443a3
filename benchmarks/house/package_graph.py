"""The import graph inside one package, folded to its parts: how many parts, imports and levels.

A part is an entry of the package's folder (a module, or a subpackage taken whole), or with
`--depth 2` also the entries of its subpackages. An import is a distinct (importer, imported) pair
of parts, read from every import statement at any depth (those under `if TYPE_CHECKING:` too: the
layout is what a reader meets); `levels` is the length of the longest chain of imports, counted in
parts. The package's own `__init__` is left out (it is the face: it imports everything).

    .venv/bin/python benchmarks/house/package_graph.py filters            # parts of filters/
    .venv/bin/python benchmarks/house/package_graph.py filters --depth 2  # and of its subpackages
"""

from __future__ import annotations

import argparse
import ast
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _part(module: str, package: str, depth: int) -> str | None:
    parts = module.split(".")
    if parts[0] != package or len(parts) < 2:
        return None
    return ".".join(parts[1 : 1 + depth])


def graph(package: str, depth: int = 1) -> tuple[set[str], set[tuple[str, str]]]:
    root = REPO / package
    nodes: set[str] = set()
    edges: set[tuple[str, str]] = set()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(REPO).with_suffix("").parts
        mod = ".".join(rel[:-1] if rel[-1] == "__init__" else rel)
        src = _part(mod, package, depth)
        if src is None:
            continue
        nodes.add(src)
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for n in names:
                dst = _part(n, package, depth)
                if dst is None:
                    continue
                # `from filters import python_ast` names a module; a name that is no part is skipped
                top = dst.split(".")[0]
                if not ((root / f"{top}.py").exists() or (root / top).is_dir()):
                    continue
                if dst.count(".") and not _exists(root, dst):
                    dst = dst.rpartition(".")[0]
                if dst != src and not src.startswith(dst + ".") and not dst.startswith(src + "."):
                    edges.add((src, dst))
    return nodes, edges


def _exists(root: Path, dotted: str) -> bool:
    p = root.joinpath(*dotted.split("."))
    return p.with_suffix(".py").exists() or p.is_dir()


def levels(nodes: set[str], edges: set[tuple[str, str]]) -> int:
    out: dict[str, set[str]] = {n: set() for n in nodes}
    for a, b in edges:
        out.setdefault(a, set()).add(b)

    @cache
    def depth(n: str, seen: frozenset[str] = frozenset()) -> int:
        if n in seen:
            return 0
        return 1 + max((depth(m, seen | {n}) for m in out.get(n, ())), default=0)

    return max((depth(n) for n in out), default=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("package")
    ap.add_argument("--depth", type=int, default=1)
    a = ap.parse_args()
    nodes, edges = graph(a.package, a.depth)
    print(f"{a.package}: {len(nodes)} parts, {len(edges)} imports, {levels(nodes, edges)} levels")


if __name__ == "__main__":
    main()
