"""Python's `ast.parse`, safe to call from several threads at once.

CPython 3.11 keeps the depth counter of its C-to-Python AST conversion in per-interpreter state.
A garbage collection during a parse can run a finalizer that lets another thread in; if that
thread parses too, the two share the counter and a parse fails with `SystemError: AST constructor
recursion depth mismatch` (seen in verify's sandbox threads; reproduced with three parsing threads
and a fourth making garbage with finalizers: one failure in 34 s). Every parse in codemix goes
through `parse`, under one lock, which closes that window; a parse takes milliseconds.
"""

from __future__ import annotations

import ast
import threading
from typing import Literal, overload

_PARSING = threading.Lock()


@overload
def parse(source: str, mode: Literal["exec"] = "exec") -> ast.Module: ...
@overload
def parse(source: str, mode: Literal["eval"]) -> ast.Expression: ...


def parse(source: str, mode: str = "exec") -> ast.AST:
    """`ast.parse(source, mode=mode)` under the process's one parse lock."""
    with _PARSING:
        return ast.parse(source, mode=mode)
