"""An assert suite run in the program's own process (where it does not convert to call tests,
`assert_calls`): its `assert` statements rewritten so one run reports every assertion
separately, and the run's result from those reports.

`assert cond` becomes: evaluate `cond`; report True, False, or the exception to `__cm_record(i, ...)`.
A failing assertion no longer stops the suite, so `tests_passed` counts assertions that held.
"""

from __future__ import annotations

import ast
import functools
from typing import Any

from filters.sandbox.limits import Limits
from filters.sandbox.outcome import Outcome, Status
from filters.sandbox.result import VERDICTS, RunResult, TestResult, summary, truncate
from filters.tools import python_ast

__all__ = ["instrument_asserts", "count_asserts", "instrumented", "assert_result"]


class _Rewriter(ast.NodeTransformer):
    def __init__(self) -> None:
        self.count = 0
        self.texts: list[str] = []

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        idx = self.count
        self.count += 1
        self.texts.append(ast.unparse(node))
        record = ast.Name("__cm_record", ast.Load())
        ok_call = ast.Expr(
            ast.Call(record, [ast.Constant(idx), ast.Name("__cm_ok", ast.Load())], [])
        )
        err_call = ast.Expr(
            ast.Call(record, [ast.Constant(idx), ast.Name("__cm_e", ast.Load())], [])
        )
        new = ast.Try(
            body=[
                ast.Assign(
                    [ast.Name("__cm_ok", ast.Store())],
                    ast.IfExp(node.test, ast.Constant(True), ast.Constant(False)),
                )
            ],
            handlers=[ast.ExceptHandler(ast.Name("Exception", ast.Load()), "__cm_e", [err_call])],
            orelse=[ok_call],
            finalbody=[],
        )
        return ast.copy_location(new, node)


def instrument_asserts(test_code: str) -> tuple[str, list[str], bool]:
    """The rewritten source, the text of each assertion, and whether it defines `check(candidate)`.

    Raises SyntaxError if it does not parse.
    """
    tree = python_ast.parse(test_code)
    defines_check = any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in tree.body)
    rw = _Rewriter()
    tree = ast.fix_missing_locations(rw.visit(tree))
    return ast.unparse(tree), rw.texts, defines_check


def count_asserts(test_code: str | None) -> int:
    """Number of `assert` statements in a test suite (0 when there is none or it does not parse)."""
    if not test_code:
        return 0
    try:
        return sum(isinstance(n, ast.Assert) for n in ast.walk(python_ast.parse(test_code)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return 0


@functools.lru_cache(maxsize=4096)
def instrumented(test_code: str) -> tuple[str, list[str], bool]:
    """`instrument_asserts`, remembered for the suites judged again and again."""
    return instrument_asserts(test_code)


def _assert_verdicts(raw: Any) -> dict[int, str]:
    """The per-assertion verdicts of a run's record; a program can forge that record, so any
    malformed entry is dropped (it then counts as not passed) instead of crashing the judge."""
    out: dict[int, str] = {}
    if isinstance(raw, dict):
        for k, v in raw.items():
            try:
                out[int(k)] = v if v in VERDICTS and v != "SE" else "RE"
            except (TypeError, ValueError, OverflowError):
                continue
    return out


def assert_result(r: Outcome, texts: list[str], limits: Limits) -> RunResult:
    """An assert suite's run, one test an assertion, from what each assertion reported."""
    total = max(1, len(texts))
    status = r.status
    res = r.record or {}
    asserts = _assert_verdicts(res.get("asserts"))
    if status == Status.OK and not res.get("done"):
        status = "RE"  # the program ended the process before its tests finished
    # An assertion that never reported in a run that finished never ran: a program can skip
    # the suite (a tracer that jumps over it, a `check` replaced before it is called), so it
    # does not count as passed. (A suite without assert statements passes by finishing.)
    unrun = "WA" if texts else "AC"
    results = []
    for i in range(total):
        v = asserts.get(i, status if status != Status.OK else unrun)
        results.append(TestResult(i, v, r.cpu_ms / total, r.wall_ms / total, r.peak_mem_kb))
    bad = [t for t in results if t.verdict != "AC"]
    verdict = status if status != Status.OK else (bad[0].verdict if bad else "AC")
    if status != Status.OK:
        for t in results:  # a crash or limit ends the run: nothing after it counts as passed
            if t.index not in asserts:
                t.verdict = status
    first = None
    if verdict != "AC":
        idx = bad[0].index if bad else 0
        first = {
            "test": idx,
            "verdict": verdict,
            "input": truncate(texts[idx]) if idx < len(texts) else None,
            "expected": None,
            "actual": None,
            "reason": res.get("first_error")
            or (
                (f"assertion {idx} failed" if idx in asserts else f"assertion {idx} never ran")
                if bad
                else None
            ),
            "exit": r.exit,
            "stderr": truncate(r.stderr, 1000),
        }
    out = summary(verdict, results, total, first, limits)
    out.cpu_ms, out.wall_ms = r.cpu_ms, r.wall_ms
    return out
