"""Turn an `assert` test suite into `call` tests, so the program never shares a process with its tests.

An `assert` suite runs in the program's own process: a hostile program can return an object
whose `__eq__` always holds, patch `abs` or `sorted`, replace the harness's recorder, or write a
fake result and exit. A `call` test instead calls the entry point in the confined child, brings
the return value back as plain typed data (`valuecodec`), and evaluates the assertion in the
parent, where the program's code never runs and whose expected values it never sees.

A suite converts only when every statement is one of:

- `assert <expr>[, msg]` where `<expr>` holds exactly one call of the function under test with
  constant arguments, and everything else in `<expr>` is constant or a whitelisted operation on
  the returned value: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`, `in`, `not in`, and `is` /
  `is not` against None/True/False), `not`, `and`/`or`, arithmetic, subscripts with constant
  indices, and calls of `abs all any bool dict float frozenset int len list max min round set
  sorted str sum tuple` and `math.isclose / fabs / floor / ceil / isnan / isinf` (constant keyword
  arguments only; no `key=`), and LeetCodeDataset's `tree_node list_node is_same_tree
  is_same_list` (a tree or linked list is plain data: `valuecodec.TreeValue` / `ListValue`, built
  as node objects in the child; its prompts define these helpers the same way in every row). A message is ignored, as the in-process rewrite ignores it. A
  constant true `assert` (HumanEval's `assert True, "..."`) is dropped: it holds for any program.
- a constant assignment (`METADATA = {...}`, `x = [1, 2]`; each name assigned once; a mutable
  named constant passed to the function may not be used anywhere else, since in the program's
  process a mutation would be seen by its later uses), a docstring, `pass`, `import math`
  (or typing, cmath, string).
- `def check(<param>):` whose body follows the same rules with `<param>(...)` as the call of the
  function under test (HumanEval), and an optional `check(<entry point>)` call.

Constants are Python literals, also simple constant expressions (`-1`, `2 ** 10`, `[0] * 5`,
`set([1, 2])`, `float("inf")`). The assertion is evaluated faithfully: Python's own operators on
the decoded value, so a tuple is not equal to a list and `1 == True` holds, as in the program.
What differs from the in-process run: each assertion runs in a fresh process (state a program
keeps between calls is not shared), each gets its own time limit, and a returned value that is
not plain data (a generator, a map object, a custom class) fails the test instead of being
consumed by the assertion; a subclass of a builtin (a namedtuple, a Counter) is compared as its
builtin base value; a program that uses `math` without importing it (relying on the suite's own
`import math` landing in its globals) fails.
"""

from __future__ import annotations

import ast
import functools
import json
import math
import operator
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from filters import python_ast
from filters.sandbox.valuecodec import (
    ListValue,
    TreeValue,
    Unencodable,
    distinct_hashes,
    encode,
    list_value,
    loads,
    tree_value,
)

__all__ = [
    "Conversion",
    "convert_suite",
    "convert_problem",
    "evaluate_assertion",
    "judge_call",
    "RESULT_NAME",
]

#: The name that stands for the function's return value in a converted assertion.
RESULT_NAME = "__cm_result"
_SAFE_IMPORTS = {"math", "typing", "cmath", "string"}
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


_FUNCS: dict[str, Any] = {
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


def _mutable(v: Any, depth: int = 0) -> bool:
    """Whether a constant can be changed in place (a program may mutate an argument it is given)."""
    if type(v) in (list, dict, set, bytearray) or depth > 50:
        return True
    if type(v) in (tuple, frozenset):
        return any(_mutable(x, depth + 1) for x in v)
    return False


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
    if isinstance(node, ast.Name) and node.id in _FUNCS:
        return node.id, _FUNCS[node.id]
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


# ---- conversion -------------------------------------------------------------------------------
def _calls_of(node: ast.AST, name: str) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(node)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
    ]


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.Call) -> None:
        self.target = target

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if node is self.target:
            return ast.Name(RESULT_NAME, ast.Load())
        return self.generic_visit(node)


@dataclass(frozen=True)
class Conversion:
    """The `call` tests of an assert suite, or why it does not convert."""

    tests: tuple[dict[str, Any], ...] = ()
    reason: str | None = None
    asserts: int = 0  # assert statements in the suite
    dropped: int = 0  # constant-true asserts left out

    @property
    def ok(self) -> bool:
        return self.reason is None and bool(self.tests)


class _Converter:
    def __init__(self, entry: str) -> None:
        self.entry = entry
        self.env: dict[str, Any] = {}
        self.tests: list[dict[str, Any]] = []
        self.asserts = 0
        self.dropped = 0
        self.check_param: str | None = None
        # In the program's process a named list passed to the function is one object: a mutation
        # is seen by later uses. Each converted test gets a fresh copy, so a mutable named constant
        # may be an argument of one assertion only, and not be used anywhere else.
        # Uses are counted per object (names in check() are local to it), objects kept alive.
        self.arg_uses: Counter[int] = Counter()
        self.other_uses: Counter[int] = Counter()
        self.objects: dict[int, tuple[str, Any]] = {}

    def use(self, node: ast.AST, as_argument: bool) -> None:
        for name in _names(node) & set(self.env):
            value = self.env[name]
            if _mutable(value):
                self.objects[id(value)] = (name, value)
                (self.arg_uses if as_argument else self.other_uses)[id(value)] += 1

    def shared_mutable(self) -> str | None:
        for key, n in self.arg_uses.items():
            if n > 1 or self.other_uses[key]:
                return self.objects[key][0]
        return None

    def fail(self, node: ast.AST, what: str) -> NotConvertible:
        return NotConvertible(f"line {getattr(node, 'lineno', '?')}: {what}")

    def module(self, tree: ast.Module) -> None:
        for st in tree.body:
            if isinstance(st, ast.FunctionDef) and st.name == "check":
                a = st.args
                if (
                    st.decorator_list
                    or len(a.args) != 1
                    or a.posonlyargs
                    or a.kwonlyargs
                    or a.vararg
                    or a.kwarg
                    or a.defaults
                ):
                    raise self.fail(st, "check() must take exactly one parameter")
                if self.check_param is not None:
                    raise self.fail(st, "check() defined twice")
                self.check_param = a.args[0].arg
                self.body(st.body, a.args[0].arg)
            elif (
                isinstance(st, ast.Expr)
                and isinstance(st.value, ast.Call)
                and isinstance(st.value.func, ast.Name)
                and st.value.func.id == "check"
            ):
                call = st.value
                if not (
                    self.check_param
                    and len(call.args) == 1
                    and not call.keywords
                    and isinstance(call.args[0], ast.Name)
                    and call.args[0].id == self.entry
                ):
                    raise self.fail(st, "check() called with something other than the entry point")
            else:
                self.statement(st, self.entry)

    def body(self, stmts: list[ast.stmt], callee: str) -> None:
        saved = dict(self.env)
        for st in stmts:
            self.statement(st, callee)
        self.env = saved

    def statement(self, st: ast.stmt, callee: str) -> None:
        if isinstance(st, ast.Assert):
            self.asserts += 1
            self.assertion(st, callee)
        elif isinstance(st, ast.Pass):
            return
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
            return  # a docstring or a bare constant
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            mods = (
                [st.module or ""] if isinstance(st, ast.ImportFrom) else [a.name for a in st.names]
            )
            relative = isinstance(st, ast.ImportFrom) and st.level
            if any(m.split(".")[0] not in _SAFE_IMPORTS for m in mods) or relative:
                raise self.fail(st, f"import of {', '.join(mods)}")
            if isinstance(st, ast.ImportFrom) or any(a.asname for a in st.names):
                raise self.fail(st, "import under another name")
        elif (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Name)
        ):
            name = st.targets[0].id
            if name in (callee, self.entry, "check", "math", RESULT_NAME) or name in _FUNCS:
                raise self.fail(st, f"assignment to {name}")
            if name in self.env:  # its value at the time a check() runs would be ambiguous
                raise self.fail(st, f"{name} assigned twice")
            self.use(st.value, as_argument=False)
            try:
                self.env[name] = evaluate(st.value, self.env)
            except NotConvertible as e:
                raise self.fail(st, f"non-constant assignment ({e})") from None
            except Exception as e:
                raise self.fail(st, f"assignment raises {type(e).__name__}") from None
        else:
            raise self.fail(st, f"{type(st).__name__} statement")

    def assertion(self, st: ast.Assert, callee: str) -> None:
        test = st.test
        calls = _calls_of(test, callee)
        if len(calls) > 1:
            raise self.fail(st, "more than one call of the function under test")
        if not calls:
            try:
                value = evaluate(test, self.env)
            except NotConvertible as e:
                raise self.fail(st, str(e)) from None
            except Exception as e:
                raise self.fail(st, f"constant assertion raises {type(e).__name__}") from None
            if not value:
                raise self.fail(st, "constant assertion that always fails")
            self.use(test, as_argument=False)
            self.dropped += 1
            return
        call = calls[0]
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            raise self.fail(st, "starred arguments")
        try:
            args = [evaluate(a, self.env) for a in call.args]
            kwargs = {k.arg: evaluate(k.value, self.env) for k in call.keywords}
        except NotConvertible as e:
            raise self.fail(st, f"non-constant argument ({e})") from None
        except Exception as e:
            raise self.fail(st, f"argument raises {type(e).__name__}") from None
        copy = python_ast.parse(ast.unparse(test), mode="eval").body
        check = _Replace(_calls_of(copy, callee)[0]).visit(copy)
        used = _names(check) & set(self.env)
        for node in [*call.args, *(k.value for k in call.keywords)]:
            self.use(node, as_argument=True)
        self.use(check, as_argument=False)
        try:
            _validate(check, {RESULT_NAME, *used})
        except NotConvertible as e:
            raise self.fail(st, str(e)) from None
        try:
            payload = json.dumps(
                {
                    "args": [encode(a) for a in args],
                    "kwargs": {k: encode(v) for k, v in kwargs.items()},
                }
            )
            env_json = json.dumps({k: encode(self.env[k]) for k in sorted(used)})
        except (Unencodable, ValueError) as e:
            raise self.fail(st, f"argument is not plain data ({e})") from None
        self.tests.append(
            {
                "input": payload,
                "output": ast.unparse(test),
                "check": ast.unparse(check),
                "env": env_json,
            }
        )


_EXPR_NODES = (
    ast.Constant, ast.Name, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.UnaryOp, ast.BinOp,
    ast.BoolOp, ast.Compare, ast.Subscript, ast.Call,
)  # fmt: skip


def _validate(node: ast.AST, names: set[str]) -> None:
    """Check a converted assertion's shape once, before any value exists: only what `evaluate` runs."""
    if isinstance(node, ast.Slice):
        for p in (node.lower, node.upper, node.step):
            if p is not None:
                _validate(p, names)
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
            _validate(e, names)
    elif isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise NotConvertible("dict unpacking")
        for key in node.keys:
            if key is not None:
                _validate(key, names)
        for v in node.values:
            _validate(v, names)
    elif isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARY:
            raise NotConvertible("unary operator")
        _validate(node.operand, names)
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _BIN:
            raise NotConvertible(f"operator {type(node.op).__name__}")
        _validate(node.left, names)
        _validate(node.right, names)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            _validate(v, names)
    elif isinstance(node, ast.Compare):
        _validate(node.left, names)
        for op, comp in zip(node.ops, node.comparators):
            if isinstance(op, (ast.Is, ast.IsNot)) and not (
                isinstance(comp, ast.Constant) and type(comp.value) in (bool, type(None))
            ):
                raise NotConvertible("`is` against a value other than None/True/False")
            _validate(comp, names)
    elif isinstance(node, ast.Subscript):
        _validate(node.value, names)
        _validate(node.slice, names)
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
            _validate(a, names)
        for k in node.keywords:
            _validate(k.value, names)


def convert_suite(test_code: str | None, entry_point: str | None) -> Conversion:
    """Convert a whole assert suite, or say (in `reason`) the first thing that prevents it."""
    if not test_code or not test_code.strip():
        return Conversion(reason="no test code")
    entry = (entry_point or "").strip()
    if not entry:
        return Conversion(reason="no entry point")
    try:
        tree = python_ast.parse(test_code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        return Conversion(reason=f"test code does not parse: {type(e).__name__}")
    name = entry if entry.isidentifier() else ""
    conv = _Converter(name or "\0no-name")
    try:
        conv.module(tree)
    except NotConvertible as e:
        return Conversion(reason=str(e), asserts=conv.asserts)
    except RecursionError:
        return Conversion(reason="test code nests too deep", asserts=conv.asserts)
    if not name and conv.check_param is None:
        return Conversion(reason=f"entry point {entry!r} is not a plain name", asserts=conv.asserts)
    if not conv.tests:
        return Conversion(reason="no assertion calls the function under test", asserts=conv.asserts)
    shared = conv.shared_mutable()
    if shared:
        return Conversion(
            reason=f"mutable constant {shared!r} is an argument and also used elsewhere",
            asserts=conv.asserts,
        )
    return Conversion(tuple(conv.tests), None, conv.asserts, conv.dropped)


@functools.lru_cache(maxsize=8192)
def _cached(test_code: str, entry_point: str) -> Conversion:
    return convert_suite(test_code, entry_point)


def convert_problem(problem: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """(the problem as typed `call` tests, None) or (None, why not); assert problems only."""
    if problem.get("test_type") != "assert":
        return None, "not an assert problem"
    conv = _cached(problem.get("test_code") or "", problem.get("entry_point") or "")
    if not conv.ok:
        return None, conv.reason
    out = dict(problem)
    out.update(
        test_type="call",
        tests=[dict(t) for t in conv.tests],
        test_code=None,
        checker=None,
        typed_calls=True,
    )
    return out, None


# ---- judging (in the parent) ----------------------------------------------------------------------
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
