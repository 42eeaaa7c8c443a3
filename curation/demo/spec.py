"""How a demo problem is described, and how its tests are produced by running its reference logic."""

from __future__ import annotations

import contextlib
import io
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Spec", "build_record", "SOURCE_OF_KIND", "source_of"]

#: The demo's three sources, each in the style of a kind of real source: contest problems judged on
#: stdin/stdout with round letters (A, B, ...), interview problems judged by calling a function with
#: easy/medium labels, and short textbook exercises checked by asserts.
SOURCE_OF_KIND: dict[str, str] = {
    "stdio": "demo-contest",
    "call": "demo-interview",
    "assert": "demo-basics",
}


def source_of(problem_id: str) -> str:
    """The demo source of a demo problem id (its prefix names its kind: `stdio-...` -> `demo-contest`)."""
    return SOURCE_OF_KIND[problem_id.split("-", 1)[0]]


@dataclass(frozen=True)
class Spec:
    """One demo problem. `gen(rng)` makes one test input (stdin text, or a list of arguments).

    Tests are outputs of `oracle` (default: `solution`) on `n_tests` generated inputs, so a
    planted wrong or slow `solution` can be given a correct, fast oracle.
    """

    id: str
    kind: str  # stdio | call | assert
    statement: str
    solution: str
    gen: Callable[[random.Random], Any]
    entry: str | None = None
    starter: str | None = None
    incorrect: tuple[str, ...] = ()
    oracle: str | None = None
    n_tests: int = 6
    label: str = "easy"
    tags: tuple[str, ...] = ()
    time_limit_s: float = 1.0


def _run_stdio(code: str, stdin: str) -> str:
    out = io.StringIO()
    old_in = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "<demo>", "exec"), {"__name__": "__main__"})
    finally:
        sys.stdin = old_in
    return out.getvalue()


def _function(code: str, entry: str) -> Callable[..., Any]:
    ns: dict[str, Any] = {"__name__": "demo_solution"}
    exec(compile(code, "<demo>", "exec"), ns)
    if entry.startswith("Solution()."):
        return getattr(ns["Solution"](), entry.split(".", 1)[1])
    return ns[entry]


def _check_code(cases: list[tuple[list[Any], Any]]) -> str:
    lines = ["def check(candidate):"]
    for args, expected in cases:
        lines.append(f"    assert candidate({', '.join(repr(a) for a in args)}) == {expected!r}")
    return "\n".join(lines) + "\n"


def build_record(spec: Spec) -> dict[str, Any]:
    """The canonical record of a spec, its tests computed by running the oracle (deterministic)."""
    rng = random.Random(f"codemix-demo/{spec.id}")
    inputs = [spec.gen(rng) for _ in range(spec.n_tests)]
    oracle = spec.oracle or spec.solution
    tests: list[dict[str, str]] = []
    test_code = None
    if spec.kind == "stdio":
        tests = [{"input": i, "output": _run_stdio(oracle, i)} for i in inputs]
    else:
        fn = _function(oracle, spec.entry or "")
        cases = [(args, fn(*json.loads(json.dumps(args)))) for args in inputs]
        if spec.kind == "call":
            tests = [{"input": json.dumps(a), "output": json.dumps(o)} for a, o in cases]
        else:
            test_code = _check_code(cases)
    return {
        "id": spec.id,
        "source": source_of(spec.id),
        "statement": spec.statement,
        "starter_code": spec.starter,
        "language": "python",
        "test_type": spec.kind,
        "entry_point": spec.entry,
        "tests": tests,
        "test_code": test_code,
        "solutions": [spec.solution],
        "incorrect_solutions": list(spec.incorrect),
        "checker": None,
        "time_limit_s": spec.time_limit_s,
        "memory_limit_mb": 256.0,
        "difficulty_label": spec.label,
        "tags": list(spec.tags),
    }
