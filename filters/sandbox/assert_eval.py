"""The checks of converted assertions (`assert_calls`), evaluated in the sandbox's process on the
plain data a program returned: a whitelist of Python's operators, constants and a few functions
(`FUNCTIONS`, `math.isclose` and the like), with guards against huge powers, sequences and hash
floods, and no attribute access or user code. `validate` checks an assertion's shape once, when
it is converted; `judge_call` gives one test's verdict from the worker's typed result.
"""

from __future__ import annotations

import ast
import functools
import json
import math
import operator
from collections.abc import Callable
from typing import Any

from filters.sandbox.valuecodec import (
    ListValue,
    TreeValue,
    distinct_hashes,
    list_value,
    loads,
    tree_value,
)
from filters.tools import python_ast

__all__ = [
    "RESULT_NAME",
    "FUNCTIONS",
    "NotConvertible",
    "evaluate",
    "validate",
    "evaluate_assertion",
    "judge_call",
]

#: The name that stands for the function's return value in a converted assertion.
RESULT_NAME = "__cm_result"
_MAX_SEQ = 1_000_000
_MAX_POW_BITS = 100_000


def _hashed(kind: type) -> Any:
    """set/frozenset/dict that refuse a mass of equal hashes (quadratic to build) from the result."""

    def build(*args: Any) -> Any:
        if args and kind is dict and type(args[0]) is not dict:
            pairs = list(args[0])
            distinct_hashes([p[0] for p in pairs if type(p) in (list, tuple) and len(p) == 2])
            return dict(pairs)
        if args and kind is not dict:
            return kind(distinct_hashes(list(args[0])))
        return kind(*args)

    return build


def _same(kind: type, name: str) -> Callable[[Any, Any], bool]:
    """LeetCode's `is_same_tree` / `is_same_list` on decoded values: equal shapes and values."""

    def same(a: Any, b: Any) -> bool:
        for x in (a, b):
            if x is not None and type(x) is not kind:
                raise TypeError(f"{name} of a {type(x).__name__}")
        return bool(a == b)

    return same


FUNCTIONS: dict[str, Any] = {
    "abs": abs,
    "all": all,
    "any": any,
    "bool": bool,
    "dict": _hashed(dict),
    "float": float,
    "frozenset": _hashed(frozenset),
    "int": int,
    "len": len,
    "list": list,
    "max": max,
    "min": min,
    "round": round,
    "set": _hashed(set),
    "sorted": sorted,
    "str": str,
    "sum": sum,
    "tuple": tuple,
    # LeetCodeDataset's helpers (its prompts define them, identically, for tree and list problems)
    "tree_node": tree_value,
    "list_node": list_value,
    "is_same_tree": _same(TreeValue, "is_same_tree"),
    "is_same_list": _same(ListValue, "is_same_list"),
}
_MATH = {
    "isclose": math.isclose,
    "fabs": math.fabs,
    "floor": math.floor,
    "ceil": math.ceil,
    "isnan": math.isnan,
    "isinf": math.isinf,
}
_KWARGS = {"round": set(), "sorted": {"reverse"}, "isclose": {"rel_tol", "abs_tol"}}
_CMP = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
_BIN = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}


class NotConvertible(ValueError):
    """This statement or expression cannot be judged outside the program."""


def _is_number(v: Any) -> bool:
    return type(v) in (int, float, complex, bool)


def _binop(op: ast.operator, a: Any, b: Any) -> Any:
    """Arithmetic with guards: no huge powers or sequences, no string formatting with `%`."""
    if type(op) not in _BIN:
        raise NotConvertible(f"operator {type(op).__name__}")
    if not (_is_number(a) and _is_number(b)):
        if isinstance(op, ast.Add) and type(a) is type(b) and type(a) in (str, list, tuple, bytes):
            if len(a) + len(b) > _MAX_SEQ:
                raise ValueError("sequence too long")
        elif isinstance(op, ast.Mult) and (type(a) is int or type(b) is int):
            seq, n = (b, a) if type(a) is int else (a, b)
            if type(seq) not in (str, list, tuple, bytes) or len(seq) * max(n, 0) > _MAX_SEQ:
                raise ValueError("sequence too long")
        elif (
            isinstance(op, ast.Sub) and type(a) in (set, frozenset) and type(b) in (set, frozenset)
        ):
            pass
        else:
            raise TypeError(f"unsupported operand types for {type(op).__name__}")
    if isinstance(op, ast.Pow) and type(a) is int and type(b) is int and b > 0:
        if max(a.bit_length(), 1) * b > _MAX_POW_BITS:
            raise ValueError("power too large")
    if isinstance(op, ast.Mult) and type(a) is int and type(b) is int:
        if a.bit_length() + b.bit_length() > _MAX_POW_BITS * 10:
            raise ValueError("product too large")
    return _BIN[type(op)](a, b)


def _func(node: ast.expr) -> tuple[str, Any] | None:
    if isinstance(node, ast.Name) and node.id in FUNCTIONS:
        return node.id, FUNCTIONS[node.id]
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "math"
        and node.attr in _MATH
    ):
        return node.attr, _MATH[node.attr]
    return None


def evaluate(node: ast.expr, env: dict[str, Any]) -> Any:
    """Evaluate a whitelisted expression on plain data (no attribute access, no user code)."""
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float, complex, str, bytes, bool, type(None)):
            raise NotConvertible("constant of an unsupported type")
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise NotConvertible(f"name {node.id!r}")
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            raise NotConvertible("starred element")
        items = [evaluate(e, env) for e in node.elts]
        return {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise NotConvertible("dict unpacking")
        pairs = zip(node.keys, node.values)
        return {evaluate(k, env): evaluate(v, env) for k, v in pairs if k is not None}
    if isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARY:
            raise NotConvertible("unary operator")
        return _UNARY[type(node.op)](evaluate(node.operand, env))
    if isinstance(node, ast.BinOp):
        return _binop(node.op, evaluate(node.left, env), evaluate(node.right, env))
    if isinstance(node, ast.BoolOp):
        value = None
        for v in node.values:
            value = evaluate(v, env)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value
    if isinstance(node, ast.Compare):
        left = evaluate(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = evaluate(comp, env)
            if isinstance(op, (ast.Is, ast.IsNot)) and not (
                right is None or right is True or right is False
            ):
                raise NotConvertible("`is` against a value other than None/True/False")
            if not _CMP[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Subscript):
        value = evaluate(node.value, env)
        sl = node.slice
        if isinstance(sl, ast.Slice):
            parts = [
                evaluate(p, env) if p is not None else None for p in (sl.lower, sl.upper, sl.step)
            ]
            return value[slice(*parts)]
        return value[evaluate(sl, env)]
    if isinstance(node, ast.Call):
        found = _func(node.func)
        if found is None:
            raise NotConvertible(f"call of {ast.unparse(node.func)[:40]}")
        name, fn = found
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise NotConvertible("starred argument")
        allowed = _KWARGS.get(name, set())
        if any(k.arg is None or k.arg not in allowed for k in node.keywords):
            raise NotConvertible(f"keyword argument of {name}")
        args = [evaluate(a, env) for a in node.args]
        return fn(*args, **{k.arg: evaluate(k.value, env) for k in node.keywords if k.arg is not None})
    raise NotConvertible(f"{type(node).__name__} expression")


_EXPR_NODES = (
    ast.Constant, ast.Name, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.UnaryOp, ast.BinOp,
    ast.BoolOp, ast.Compare, ast.Subscript, ast.Call,
)  # fmt: skip


def validate(node: ast.AST, names: set[str]) -> None:
    """Check a converted assertion's shape once, before any value exists: only what `evaluate` runs."""
    if isinstance(node, ast.Slice):
        for p in (node.lower, node.upper, node.step):
            if p is not None:
                validate(p, names)
        return
    if not isinstance(node, _EXPR_NODES):
        raise NotConvertible(f"{type(node).__name__} expression")
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float, complex, str, bytes, bool, type(None)):
            raise NotConvertible("constant of an unsupported type")
    elif isinstance(node, ast.Name):
        if node.id not in names:
            raise NotConvertible(f"name {node.id!r}")
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for e in node.elts:
            if isinstance(e, ast.Starred):
                raise NotConvertible("starred element")
            validate(e, names)
    elif isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise NotConvertible("dict unpacking")
        for key in node.keys:
            if key is not None:
                validate(key, names)
        for v in node.values:
            validate(v, names)
    elif isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARY:
            raise NotConvertible("unary operator")
        validate(node.operand, names)
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _BIN:
            raise NotConvertible(f"operator {type(node.op).__name__}")
        validate(node.left, names)
        validate(node.right, names)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            validate(v, names)
    elif isinstance(node, ast.Compare):
        validate(node.left, names)
        for op, comp in zip(node.ops, node.comparators):
            if isinstance(op, (ast.Is, ast.IsNot)) and not (
                isinstance(comp, ast.Constant) and type(comp.value) in (bool, type(None))
            ):
                raise NotConvertible("`is` against a value other than None/True/False")
            validate(comp, names)
    elif isinstance(node, ast.Subscript):
        validate(node.value, names)
        validate(node.slice, names)
    elif isinstance(node, ast.Call):
        found = _func(node.func)
        if found is None:
            raise NotConvertible(f"call of {ast.unparse(node.func)[:40]}")
        allowed = _KWARGS.get(found[0], set())
        if any(k.arg is None or k.arg not in allowed for k in node.keywords):
            raise NotConvertible(f"keyword argument of {found[0]}")
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise NotConvertible("starred argument")
            validate(a, names)
        for k in node.keywords:
            validate(k.value, names)


@functools.lru_cache(maxsize=65536)
def _parsed(check: str) -> ast.expr:
    return python_ast.parse(check, mode="eval").body


@functools.lru_cache(maxsize=65536)
def _env(env_json: str) -> dict[str, Any]:
    return {k: loads(json.dumps(v)) for k, v in json.loads(env_json).items()}


def evaluate_assertion(test: dict[str, Any], value: Any) -> bool:
    """Whether a converted assertion holds for the (decoded, plain) return value; raises if it raises."""
    env = dict(_env(test.get("env") or "{}"))
    env[RESULT_NAME] = value
    return bool(evaluate(_parsed(test["check"]), env))


def judge_call(test: dict[str, Any], actual_json: str) -> tuple[str, str | None]:
    """(verdict, reason) of one converted test from the worker's typed result text."""
    try:
        value = loads(actual_json)
    except (ValueError, TypeError) as e:
        return "WA", f"malformed result: {e}"[:200]
    try:
        ok = evaluate_assertion(test, value)
    except NotConvertible as e:  # a malformed test, never the program's fault
        return "SE", f"bad converted test: {e}"[:200]
    except RecursionError:
        return "RE", "assertion raised RecursionError"
    except Exception as e:
        return "RE", f"assertion raised {type(e).__name__}: {e}"[:200]
    return ("AC", None) if ok else ("WA", "assertion failed")
