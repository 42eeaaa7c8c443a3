"""Rewrite a test suite's `assert` statements so one run reports every assertion separately.

`assert cond` becomes: evaluate `cond`; report True, False, or the exception to `__cm_record(i, ...)`.
A failing assertion no longer stops the suite, so `tests_passed` counts assertions that held.
"""

from __future__ import annotations

import ast

from filters import python_ast

__all__ = ["instrument_asserts", "count_asserts"]


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
