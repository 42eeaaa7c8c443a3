"""Difficulty from features of a problem, for rows without a label or rollouts.

Features: statement length and keywords, constraint magnitudes parsed from the statement (10^5, 2*10^5,
1 <= n <= 100000), reference runtime (`ref_cpu_ms`), reference solution size and AST structure
(loop nesting, recursion, functions), tags, test count. A ridge regression (numpy) on
standardized features is fitted to the label prior of labelled rows.
"""

from __future__ import annotations

import ast
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from filters.stages.difficulty.stats import spearman
from filters.tools import python_ast
from filters.tools.languages import programs_in

__all__ = [
    "BASE_FEATURES",
    "KEYWORDS",
    "FEATURES",
    "constraint_bounds",
    "code_features",
    "problem_features",
    "FeatureModel",
    "Feats",
    "feature_matrix",
    "cross_val_predict",
]

BASE_FEATURES = (
    "log_statement_chars",
    "max_bound_log10",
    "n_bounds",
    "has_ref_cpu",
    "log_ref_cpu_ms",
    "log_tests",
    "has_solution",
    "log_solution_chars",
    "log_solution_lines",
    "loop_count",
    "max_loop_depth",
    "function_count",
    "recursive",
    "class_count",
    "comprehension_count",
    "branch_count",
    "uses_heap",
    "uses_bisect",
    "uses_cache",
    "uses_deque",
    "uses_sort",
    "n_tags",
)
#: Statement phrases that hint at a kind of problem (and so at its difficulty); one 0/1 feature each.
KEYWORDS = (
    "modulo", "10^9+7", "1e9+7", "109 + 7", "query", "queries", "tree", "graph", "subsequence",
    "substring", "expected", "probability", "minimum", "maximum", "number of ways", "permutation",
    "interactive", "any of them", "bitwise", "xor", "prime", "divisor", "matrix", "grid",
    "palindrome", "shortest", "path", "distinct", "lexicographically", "sum", "sorted", "array",
    "string", "integer", "return", "binary", "k-th", "kth", "operations", "optimal", "game",
    "intervals",
)  # fmt: skip
FEATURES = BASE_FEATURES + tuple(f"kw:{k}" for k in KEYWORDS)

_NUM = r"(\d+(?:[.,]\d+)?)"
_POW = re.compile(
    _NUM + r"?\s*(?:\*|·|⋅|×|x|\\cdot|\\times)?\s*10\s*(?:\^|\*\*)\s*\{?\s*(\d{1,2})\s*\}?"
)
_E_NOTATION = re.compile(r"\b(\d+(?:\.\d+)?)[eE](\d{1,2})\b")
_LE_NUMBER = re.compile(r"(?:≤|<=|\\le(?:q)?|<)\s*\$?\s*(\d{2,19})\b")


def constraint_bounds(statement: str) -> list[float]:
    """Numeric bounds found in a statement: powers of ten (`2*10^5`, `10^{9}`, `1e5`) and numbers after <= / ≤."""
    out: list[float] = []
    for m in _POW.finditer(statement):
        coef = float(m.group(1).replace(",", ".")) if m.group(1) else 1.0
        if coef > 1000:  # "100 x 10^5" is unlikely; likely a number followed by a power of ten
            coef = 1.0
        out.append(coef * 10.0 ** int(m.group(2)))
    for m in _E_NOTATION.finditer(statement):
        out.append(float(m.group(1)) * 10.0 ** int(m.group(2)))
    for m in _LE_NUMBER.finditer(statement):
        out.append(float(m.group(1)))
    return out


class _CodeStats(ast.NodeVisitor):
    def __init__(self) -> None:
        self.loops = 0
        self.depth = 0
        self.max_depth = 0
        self.functions: list[str] = []
        self.recursive = False
        self.classes = 0
        self.comprehensions = 0
        self.branches = 0
        self.names: Counter[str] = Counter()
        self._stack: list[str] = []

    def _loop(self, node: ast.AST) -> None:
        self.loops += 1
        self.depth += 1
        self.max_depth = max(self.max_depth, self.depth)
        self.generic_visit(node)
        self.depth -= 1

    visit_For = visit_While = visit_AsyncFor = _loop

    def _func(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.functions.append(node.name)
        self._stack.append(node.name)
        saved, self.depth = self.depth, 0
        self.generic_visit(node)
        self.depth = saved
        self._stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _func

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes += 1
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        self.branches += 1
        self.generic_visit(node)

    def _comp(self, node: ast.AST) -> None:
        self.comprehensions += 1
        self.generic_visit(node)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comp

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name:
            self.names[name] += 1
            if self._stack and name == self._stack[-1]:
                self.recursive = True
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self.names[node.id] += 1

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.names[node.attr] += 1
        self.generic_visit(node)

    def visit_alias(self, node: ast.alias) -> None:
        self.names[node.name.split(".")[0]] += 1
        self.names[node.asname or node.name] += 1


def code_features(code: str | None) -> dict[str, float]:
    """Size and AST structure of one reference solution (zeros when absent or unparsable)."""
    f = dict.fromkeys(BASE_FEATURES[6:21], 0.0)
    if not code or not code.strip():
        return f
    f["has_solution"] = 1.0
    f["log_solution_chars"] = math.log1p(len(code))
    f["log_solution_lines"] = math.log1p(sum(1 for line in code.splitlines() if line.strip()))
    try:
        tree = python_ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return f
    v = _CodeStats()
    try:
        v.visit(tree)
    except RecursionError:
        return f
    f.update(
        loop_count=float(v.loops),
        max_loop_depth=float(v.max_depth),
        function_count=float(len(v.functions)),
        recursive=float(v.recursive),
        class_count=float(v.classes),
        comprehension_count=float(v.comprehensions),
        branch_count=float(v.branches),
        uses_heap=float(v.names["heapq"] + v.names["heappush"] + v.names["heappop"] > 0),
        uses_bisect=float(v.names["bisect"] + v.names["bisect_left"] + v.names["bisect_right"] > 0),
        uses_cache=float(v.names["lru_cache"] + v.names["cache"] > 0),
        uses_deque=float(v.names["deque"] > 0),
        uses_sort=float(v.names["sorted"] + v.names["sort"] > 0),
    )
    return f


def _shortest(solutions: Sequence[str] | None) -> str | None:
    sols = [s for s in (solutions or []) if isinstance(s, str) and s.strip()]
    return min(sols, key=len) if sols else None


def problem_features(row: dict[str, Any]) -> dict[str, float]:
    """Numeric features of one canonical row (verify columns used when present)."""
    statement = row.get("statement") or ""
    bounds = [b for b in constraint_bounds(statement) if b > 0]
    f: dict[str, float] = {
        "log_statement_chars": math.log1p(len(statement)),
        "max_bound_log10": min(19.0, math.log10(max(bounds))) if bounds else 0.0,
        "n_bounds": math.log1p(len(bounds)),
    }
    cpu = row.get("ref_cpu_ms")
    cpu_ms = float(cpu) if isinstance(cpu, (int, float)) and not isinstance(cpu, bool) else math.nan
    ok = math.isfinite(cpu_ms) and cpu_ms >= 0
    f["has_ref_cpu"] = 1.0 if ok else 0.0
    f["log_ref_cpu_ms"] = math.log1p(cpu_ms) if ok else 0.0
    n_tests = row.get("tests_total")
    if not isinstance(n_tests, int) or isinstance(n_tests, bool):
        n_tests = len(row.get("tests") or [])
    f["log_tests"] = math.log1p(max(0, n_tests))
    f.update(code_features(_shortest([c for c, _ in programs_in(row, "python")])))
    f["n_tags"] = float(len(row.get("tags") or []))
    low = statement.lower()
    for k in KEYWORDS:
        f[f"kw:{k}"] = 1.0 if k in low else 0.0
    return f


def feature_matrix(feats: Sequence[dict[str, float]]) -> np.ndarray:
    """Feature dicts as rows of a float32 matrix, columns in `FEATURES` order (compact to keep)."""
    return np.array([[f.get(k, 0.0) for k in FEATURES] for f in feats], dtype=np.float32).reshape(
        len(feats), len(FEATURES)
    )


#: Features of many problems: dicts from `problem_features`, or their `feature_matrix`.
Feats = Sequence[dict[str, float]] | np.ndarray


def _norm_tag(t: str) -> str:
    return re.sub(r"\s+", " ", t.strip().lower())


@dataclass
class FeatureModel:
    """Ridge regression from problem features (+ frequent tags) to difficulty in [0, 1]."""

    alpha: float = 3.0
    min_tag_count: int = 5
    max_tags: int = 60
    tag_vocab: tuple[str, ...] = ()
    mean: np.ndarray | None = None
    scale: np.ndarray | None = None
    coef: np.ndarray | None = None
    intercept: float = 0.5
    residual_std: float = 0.25

    def _matrix(self, feats: Feats, tags: Sequence[Sequence[str]]) -> np.ndarray:
        base = feats.astype(float) if isinstance(feats, np.ndarray) else feature_matrix(feats)
        index = {t: i for i, t in enumerate(self.tag_vocab)}
        tag_m = np.zeros((len(feats), len(self.tag_vocab)))
        for r, ts in enumerate(tags):
            for t in ts or []:
                j = index.get(_norm_tag(t))
                if j is not None:
                    tag_m[r, j] = 1.0
        return np.hstack([base, tag_m])

    def fit(self, feats: Feats, tags: Sequence[Sequence[str]], y: np.ndarray) -> FeatureModel:
        y = np.asarray(y, dtype=float)
        counts = Counter(_norm_tag(t) for ts in tags for t in set(ts or []))
        vocab = [t for t, c in counts.most_common() if c >= self.min_tag_count][: self.max_tags]
        self.tag_vocab = tuple(sorted(vocab))
        X = self._matrix(feats, tags)
        self.mean = X.mean(axis=0)
        sd = X.std(axis=0)
        self.scale = np.where(sd > 1e-9, sd, 1.0)
        Z = (X - self.mean) / self.scale
        self.intercept = float(y.mean())
        yc = y - self.intercept
        k = Z.shape[1]
        self.coef = np.linalg.solve(Z.T @ Z + self.alpha * np.eye(k), Z.T @ yc)
        resid = yc - Z @ self.coef
        self.residual_std = float(max(0.05, np.sqrt(np.mean(resid**2)) if len(y) else 0.25))
        return self

    def predict(self, feats: Feats, tags: Sequence[Sequence[str]]) -> np.ndarray:
        if self.coef is None or self.mean is None or self.scale is None:
            raise RuntimeError("FeatureModel.predict before fit")
        Z = (self._matrix(feats, tags) - self.mean) / self.scale
        return np.clip(self.intercept + Z @ self.coef, 0.0, 1.0)


def cross_val_predict(
    feats: Feats,
    tags: Sequence[Sequence[str]],
    y: np.ndarray,
    folds: int = 5,
    seed: int = 0,
    **model_args: Any,
) -> tuple[np.ndarray, float]:
    """Out-of-fold predictions and their Spearman correlation with `y` (held-out rank correlation)."""
    y = np.asarray(y, dtype=float)
    n = len(y)
    X = feats if isinstance(feats, np.ndarray) else feature_matrix(feats)
    fold = np.random.default_rng(seed).permutation(n) % folds
    pred = np.zeros(n)
    for k in range(folds):
        tr, te = np.where(fold != k)[0], np.where(fold == k)[0]
        if not len(te) or not len(tr):
            continue
        m = FeatureModel(**model_args).fit(X[tr], [tags[i] for i in tr], y[tr])
        pred[te] = m.predict(X[te], [tags[i] for i in te])
    return pred, spearman(pred, y)
