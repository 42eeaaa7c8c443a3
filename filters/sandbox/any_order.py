"""A converted call test judged with its returned list in any order (the `any_order` comparison).

A converted assertion (`assert_calls`) whose check is `R == E` holds in any order when R and the
value of E are lists holding the same elements, each as often (`filters.compare.same_multiset`);
the elements are compared with `==`, as the check compares them. Any other check is judged as it is.
The runner applies this for verify and the rewards alike, where the problem's comparison says so.
"""

from __future__ import annotations

import ast
import json
import operator
from typing import Any

from filters.compare import same_multiset
from filters.sandbox.assert_eval import RESULT_NAME, evaluate
from filters.sandbox.valuecodec import loads
from filters.tools import python_ast

__all__ = ["holds_in_any_order"]


def _is_result(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == RESULT_NAME


def holds_in_any_order(test: dict[str, Any], actual_json: str) -> bool:
    """Whether `test` (a converted call test) holds for the returned value with the top-level list
    in any order; False when its check is not `R == E` or either side is not a list."""
    try:
        value = loads(actual_json)
        root = python_ast.parse(test["check"], mode="eval").body
    except (ValueError, TypeError, SyntaxError, KeyError):
        return False
    if not (
        isinstance(root, ast.Compare) and len(root.ops) == 1 and isinstance(root.ops[0], ast.Eq)
    ):
        return False
    left, right = root.left, root.comparators[0]
    if _is_result(left) == _is_result(right):
        return False
    other = right if _is_result(left) else left
    try:
        env = {k: loads(json.dumps(v)) for k, v in json.loads(test.get("env") or "{}").items()}
        expected = evaluate(other, env)
    except Exception:  # a check that does not evaluate: judged as it is
        return False
    if not (isinstance(expected, (list, tuple)) and isinstance(value, (list, tuple))):
        return False
    return same_multiset(list(expected), list(value), operator.eq)
