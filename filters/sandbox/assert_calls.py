"""Turn an `assert` test suite into `call` tests, so the program never shares a process with its tests.

An `assert` suite runs in the program's own process: a hostile program can return an object
whose `__eq__` always holds, patch `abs` or `sorted`, replace the harness's recorder, or write a
fake result and exit. A `call` test instead calls the entry point in the confined child, brings
the return value back as plain typed data (`valuecodec`), and evaluates the assertion in the
parent, where the program's code never runs and whose expected values it never sees
(`assert_eval`).

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
from collections import Counter
from dataclasses import dataclass
from typing import Any

from filters.sandbox.assert_eval import (
    FUNCTIONS,
    RESULT_NAME,
    NotConvertible,
    evaluate,
    evaluate_assertion,
    judge_call,
    validate,
)
from filters.sandbox.valuecodec import Unencodable, encode
from filters.tools import python_ast

__all__ = [
    "Conversion",
    "convert_suite",
    "convert_problem",
    "evaluate_assertion",
    "judge_call",
    "RESULT_NAME",
]

_SAFE_IMPORTS = {"math", "typing", "cmath", "string"}


def _mutable(v: Any, depth: int = 0) -> bool:
    """Whether a constant can be changed in place (a program may mutate an argument it is given)."""
    if type(v) in (list, dict, set, bytearray) or depth > 50:
        return True
    if type(v) in (tuple, frozenset):
        return any(_mutable(x, depth + 1) for x in v)
    return False


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
            if name in (callee, self.entry, "check", "math", RESULT_NAME) or name in FUNCTIONS:
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
            validate(check, {RESULT_NAME, *used})
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
