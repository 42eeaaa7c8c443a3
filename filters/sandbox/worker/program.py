"""A run's program, in its child: run once as a fresh interpreter runs `solution.py` (a call test's
function called, an assert suite's assertions reported one by one, a batch of calls), then shut
down like one and report on fd 3; or a problem's checker on one output.

Part of the worker script (stdlib only). `worker/child` has read the run's inputs, confined the
process and dropped its privileges before anything here runs: all of it is the program's time.
The program's code, and every call of it, runs at the same depth of the stack as it always did
(the recursion limit is the program's), so the harness's own steps are the functions around.
"""

from __future__ import annotations

import atexit
import builtins
import gc
import json
import os
import signal
import sys
import time
import traceback
import types
from collections.abc import Callable
from typing import Any, NamedTuple

import wire

#: the most of an error text kept
TAIL = 2000

# Typed plain data for `typed_calls` problems (valuecodec.py, stdlib only): loaded from its file so
# that the worker stays a self-contained script, with its own copy of the builtins so that a
# program that rebinds `len` or `isinstance` does not change how its result is written.
_CODEC: dict = {"__name__": "valuecodec", "__builtins__": dict(builtins.__dict__)}
_SANDBOX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # valuecodec.py is there
with open(os.path.join(_SANDBOX_DIR, "valuecodec.py")) as _f:
    exec(compile(_f.read(), "valuecodec.py", "exec"), _CODEC)


class Program(NamedTuple):
    """The program as this run runs it."""

    code: types.CodeType
    suite: types.CodeType | None  # assert: the instrumented suite
    call: str | None  # call: the arguments (JSON)


def run_batch(prog: Program, req: wire.Run) -> int:
    """Run a batch of calls (`req.batch`: the program once, then its calls, `_run_calls`) and
    report; its exit status."""
    sys.set_int_max_str_digits(0)  # as `run_program`
    mod = _main_module()
    ns = mod.__dict__
    record: dict = {}
    code = 0
    try:
        _run_calls(prog, req, ns, record)
    except BaseException as e:  # the program itself (not a call) failed: no call counts
        record["exc"] = type(e).__name__
        code = 1
    sys.modules.pop("__main__", None)
    del mod, ns
    return _finish(code, record, True)


def run_program(prog: Program, req: wire.Run) -> int:
    """Run the program once and report; its exit status."""
    # Integers of any length convert to and from text, as on the judges' Pythons (before 3.11) and
    # PyPy: a reference that prints a 5,000-digit number is right. Its CPU counts against its limit.
    sys.set_int_max_str_digits(0)
    mod = _main_module()
    ns = mod.__dict__
    record: dict = {}
    code = 0
    typed_args = None
    if req.kind == "call" and req.typed:  # {"args", "kwargs"}, values typed (valuecodec)
        # decoded before the program runs: it cannot alter this
        typed_args = _decode_call(prog.call or "", True)
    nodes = typed_args is not None and _has_nodes(typed_args)
    if typed_args is not None:  # as LeetCode's judge does; the program's own definitions replace
        exec(_NODE_CLASSES, ns)  # them (a converted suite's tests may hold no node: `root=None`)
    try:
        exec(prog.code, ns)
        if req.kind == "call":
            fn = _resolve(ns, req.entry)
            if typed_args is None:
                args = json.loads(prog.call or "")
                call: tuple[Any, dict[str, Any]] = (args, {}) if isinstance(args, list) else ([args], {})
            elif nodes:
                call = (
                    [_build_nodes(a, ns) for a in typed_args[0]],
                    {k: _build_nodes(v, ns) for k, v in typed_args[1].items()},
                )
            else:
                call = typed_args
            value = fn(*call[0], **call[1])
            try:
                typed = typed_args is not None
                record["result"] = (
                    _CODEC["dumps"](value) if typed else json.dumps(value, allow_nan=True)
                )
            except (TypeError, ValueError) as e:
                record["unserializable"] = f"{type(value).__name__}: {e}"[:200]
        elif req.kind == "assert":
            results: dict = {}
            record["asserts"] = results
            ns["__cm_record"] = _recorder(results, record)
            if prog.suite is not None:
                exec(prog.suite, ns)
                if req.call_check and callable(ns.get("check")) and req.entry:
                    ns["check"](_resolve(ns, req.entry))
            record["done"] = True
    except SystemExit as e:
        c = e.code
        if c is None or c == 0:
            code = 0
        elif isinstance(c, int):
            code = c & 0xFF or 1
        else:
            print(c, file=sys.stderr)
            code = 1
        if code != 0:
            record["exc"] = "SystemExit"
    except BaseException as e:
        record["exc"] = type(e).__name__
        _print_exception(e)
        code = 1
    sys.modules.pop("__main__", None)  # the program's objects become garbage for _finish
    del mod, ns
    fn = value = typed_args = args = call = None  # type: ignore[assignment]  # noqa: F841
    return _finish(code, record, True)


def _main_module() -> types.ModuleType:
    """A fresh `__main__` for the program, as the interpreter makes for `solution.py`."""
    mod = types.ModuleType("__main__")
    mod.__dict__["__builtins__"] = builtins
    mod.__file__ = "solution.py"
    sys.modules["__main__"] = mod
    return mod


def _recorder(results: dict, record: dict) -> Callable[[int, Any], None]:
    """The `__cm_record` an instrumented suite reports each assertion's outcome to."""

    def __cm_record(idx: int, outcome: Any) -> None:
        if idx in results and results[idx] != "AC":
            return
        if outcome is True:
            results[idx] = "AC"
        elif outcome is False:
            results[idx] = "WA"
        elif isinstance(outcome, MemoryError):
            results[idx] = "MLE"
        else:
            results[idx] = "RE"
            if "first_error" not in record:
                record["first_error"] = "".join(
                    traceback.format_exception_only(type(outcome), outcome)
                )[-TAIL:]

    return __cm_record


def _print_exception(e: BaseException) -> None:
    """The traceback a fresh interpreter would print: without the harness's frame."""
    try:
        traceback.print_exception(type(e), e, e.__traceback__.tb_next if e.__traceback__ else None)
    except BaseException:
        pass


def _finish(code: int, record: dict | None, collect: bool) -> int:
    """Shut down like an interpreter: join threads, run atexit, collect, flush; then report.

    `collect`: the program's namespace was dropped (not emptied: its objects' finalizers, such as
    a fast-I/O buffer that writes itself out on deletion, run while the globals they use exist,
    as the collector runs them at an interpreter's exit), so collect it and flush what they wrote.
    """
    threading = sys.modules.get("threading")  # not preloaded: importing it doubles fork cost
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException:
            pass
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for s in (sys.stdout, sys.stderr):  # flushed before __main__ is torn down, as CPython does
        try:
            s.flush()
        except BaseException:
            code = code or wire.ExitCode.FLUSH_FAILED
    if collect:
        try:
            gc.collect()
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
    if record:  # an empty record is no record (nothing to report: a stdio run that ended)
        try:
            data = json.dumps(record).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(3, view) :]
        except BaseException:
            pass
    return code


def _resolve(ns: dict, entry: str | None) -> Any:
    """The callable a call or assert test calls: a function, or `Solution().method`."""
    entry = (entry or "").strip()
    if "()." in entry:
        cls, meth = entry.split("().", 1)
        return getattr(ns[cls.strip()](), meth.strip())
    return eval(entry, ns)


#: LeetCode's node classes, put in the namespace of every typed call's program before it runs
_NODE_CLASSES = compile(
    """
class TreeNode:
    def __init__(self, val=0, left=None, right=None):
        self.val = val
        self.left = left
        self.right = right

class ListNode:
    def __init__(self, val=0, next=None):
        self.val = val
        self.next = next
""",
    "<leetcode nodes>",
    "exec",
)


def _has_nodes(value: Any, depth: int = 0) -> bool:
    t = type(value)
    if t is _CODEC["TreeValue"] or t is _CODEC["ListValue"]:
        return True
    if depth < 8 and t in (list, tuple):
        return any(_has_nodes(x, depth + 1) for x in value)
    if depth < 8 and t is dict:
        return any(_has_nodes(x, depth + 1) for x in value.values())
    return False


def _build_nodes(value: Any, ns: dict) -> Any:
    """`value` with each decoded tree or linked list replaced by node objects: built by the
    program's own `tree_node` / `list_node` where it defines them (LeetCodeDataset's prompts do),
    else from its `TreeNode` / `ListNode` classes in LeetCode's level order. Runs after the
    program's code, in its process: it builds its own arguments."""
    t = type(value)
    if t is _CODEC["TreeValue"] or t is _CODEC["ListValue"]:
        tree = t is _CODEC["TreeValue"]
        helper = ns.get("tree_node" if tree else "list_node")
        items = list(value.items)
        if callable(helper):
            return helper(items)
        cls = ns["TreeNode" if tree else "ListNode"]
        nodes: list[Any] = [None if v is None else cls(v) for v in items]
        if not tree:
            for a, b in zip(nodes, nodes[1:]):
                a.next = b
            return nodes[0]
        kids = iter(nodes[1:])
        for node in nodes:  # level order: each present node takes the next two slots
            if node is not None:
                node.left = next(kids, None)
                node.right = next(kids, None)
        return nodes[0]
    if t in (list, tuple):
        return t(_build_nodes(x, ns) for x in value)
    if t is dict:
        return {k: _build_nodes(v, ns) for k, v in value.items()}
    return value


class _CallTimeout(BaseException):
    """A call of a batch ran past its CPU limit (raised by the SIGPROF timer)."""


def _on_timer(signum: int, frame: Any) -> None:
    raise _CallTimeout


def _decode_call(text: str, typed: bool) -> tuple[list[Any], dict[str, Any]]:
    """A call's (args, kwargs) from its JSON text (typed: valuecodec's {"args", "kwargs"})."""
    call = json.loads(text)
    if typed:
        return (
            [_CODEC["decode"](a) for a in call["args"]],
            {k: _CODEC["decode"](v) for k, v in call["kwargs"].items()},
        )
    return (call, {}) if isinstance(call, list) else ([call], {})


def _run_calls(prog: Program, req: wire.Run, ns: dict, record: dict) -> None:
    """A batch (`req.batch`): the program once, then each call of the JSON list in Files.CALL in
    turn, each stopped past `req.call_time_s` of CPU counting the program's own start-up (as a run
    of its own would); one entry a call in record["calls"]: its result, or its status (TLE, MLE,
    RE); with `req.stop`, none after the first such status. For trusted programs only (references
    and their mutants): the calls share the process."""
    calls = [_decode_call(text, req.typed) for text in json.loads(prog.call or "[]")]
    if req.typed:
        exec(_NODE_CLASSES, ns)
    start = time.process_time()
    exec(prog.code, ns)
    setup = time.process_time() - start
    out: list[dict] = []
    record["calls"] = out
    signal.signal(signal.SIGPROF, _on_timer)
    for args, kwargs in calls:
        left = req.call_time_s - setup
        t0 = time.process_time()
        entry: dict = {}
        try:
            if left <= 0:
                raise _CallTimeout
            signal.setitimer(signal.ITIMER_PROF, left)
            fn = _resolve(ns, req.entry)
            if req.typed and _has_nodes((args, kwargs)):
                args = [_build_nodes(a, ns) for a in args]
                kwargs = {k: _build_nodes(v, ns) for k, v in kwargs.items()}
            value = fn(*args, **kwargs)
            signal.setitimer(signal.ITIMER_PROF, 0)
            try:
                entry["result"] = (
                    _CODEC["dumps"](value) if req.typed else json.dumps(value, allow_nan=True)
                )
            except (TypeError, ValueError) as e:
                entry["unserializable"] = f"{type(value).__name__}: {e}"[:200]
        except _CallTimeout:
            entry["status"] = "TLE"
        except MemoryError:
            entry["status"] = "MLE"
        except BaseException as e:  # noqa: BLE001 - a call's crash, SystemExit too, is its RE
            entry["status"] = "RE"
            entry["error"] = "".join(traceback.format_exception_only(type(e), e))[-TAIL:]
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        cpu = time.process_time() - t0
        if "status" not in entry and setup + cpu > req.call_time_s:  # the timer fired late
            entry = {"status": "TLE"}
        entry["cpu_ms"] = 1000.0 * (setup + cpu)
        out.append(entry)
        if req.stop and "status" in entry:
            break
    record["done"] = True


def run_checker(task: dict[str, str]) -> int:
    """Run a problem's checker on one output (`check(input, expected, actual)`) and report."""
    ns: dict = {"__name__": "__checker__", "__builtins__": builtins}
    record: dict = {}
    code = 0
    try:
        exec(compile(task["checker"], "checker.py", "exec"), ns)
        record["ok"] = bool(ns["check"](task["input"], task["expected"], task["actual"]))
    except BaseException as e:
        record["exc"] = type(e).__name__
        record["error"] = "".join(traceback.format_exception_only(type(e), e))[-TAIL:]
        code = 1
    return _finish(code, record, False)
