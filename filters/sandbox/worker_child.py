"""A run's child: read the run's inputs, confine the process, run the program once, exit like an
interpreter.

Part of the worker script (stdlib only), forked from the server for every run. While still root
it reads what the sandbox wrote for this run (the program, compiled once per program and cached,
a call's arguments, a check) from the I/O directory, which the program cannot enter; then it
drops its privileges. `run` never returns: it ends the process with the program's exit status.
The program sees real file descriptors (stdin a file, stdout and stderr files the sandbox reads
afterwards) and `sys.stdout` objects shaped like a fresh interpreter's. Fd 3 carries the run's
record (a call's result, the assertions' outcomes) back to the sandbox. When the program cannot
start (it does not compile), the harness says why in a note only root can write.
"""

from __future__ import annotations

import atexit
import builtins
import gc
import io
import json
import marshal
import os
import signal
import sys
import time
import traceback
import types
from typing import Any, NamedTuple, NoReturn

import wire
import worker_isolation as isolation
import worker_native as native

#: the most of an error text kept
TAIL = 2000
#: where a native program's executable is held open until it is executed
_KEPT_FD = 4
_COMPILE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)

# Typed plain data for `typed_calls` problems (valuecodec.py, stdlib only): loaded from its file so
# that the worker stays a self-contained script, with its own copy of the builtins so that a
# program that rebinds `len` or `isinstance` does not change how its result is written.
_CODEC: dict = {"__name__": "valuecodec", "__builtins__": dict(builtins.__dict__)}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "valuecodec.py")) as _f:
    exec(compile(_f.read(), "valuecodec.py", "exec"), _CODEC)


class Program(NamedTuple):
    """The program as this run runs it."""

    code: types.CodeType
    suite: types.CodeType | None  # assert: the instrumented suite
    call: str | None  # call: the arguments (JSON)


#: the program's stdio objects (make_stdio)
STDIO: tuple[io.TextIOWrapper, io.TextIOWrapper, io.TextIOWrapper] | None = None


class _Noted(Exception):
    """The program cannot start; the note says why."""


def run(iso: isolation.Isolation, req: wire.Run) -> NoReturn:
    """In the forked child: read the run's inputs, confine, run, and exit with the status."""
    code = wire.ExitCode.CHILD_FAILED
    try:
        native_program = req.language != "python" and not req.check
        try:
            if req.compiler:  # a native program's compile run (worker_native)
                code = native.compile_program(iso, req)
            elif native_program:
                _confine(iso, req.limits, keep=native.open_binary(iso))
            else:
                task = _read_check(iso) if req.check else _read_program(iso, req)
                _confine(iso, req.limits)
        except _Noted:
            code = wire.ExitCode.NOTED
            raise
        except BaseException as e:  # the harness failed before the program ran: not the program's
            code = _harness_fault(iso, e)
            raise
        if native_program and not req.compiler:
            code = native.execute(_KEPT_FD)
        elif not req.compiler:
            code = _run_checker(task) if isinstance(task, dict) else _run_program(task, req)
    finally:
        os._exit(code)


def _harness_fault(iso: isolation.Isolation, e: BaseException) -> int:
    """Note a harness failure (the sandbox reports SE, never the program's RE); CHILD_FAILED when
    even the note cannot be written."""
    try:
        _note(iso, se=f"the sandbox could not start the program: {type(e).__name__}: {e}"[:TAIL])
    except BaseException:
        return wire.ExitCode.CHILD_FAILED
    return wire.ExitCode.NOTED


def _path(iso: isolation.Isolation, name: str) -> str:
    return os.path.join(iso.iodir, name)


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):  # from the heap: a bigger buffer is a fresh mapping
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _note(iso: isolation.Isolation, **what: Any) -> None:
    """A note for the sandbox, written as root: the program, which runs later and unprivileged,
    can neither write nor forge it."""
    fd = os.open(_path(iso, wire.Files.NOTE), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        wire.write_all(fd, json.dumps(what).encode())
    finally:
        os.close(fd)


def _read_check(iso: isolation.Isolation) -> dict[str, str]:
    return json.loads(_read(_path(iso, wire.Files.CHECK)))


def _read_program(iso: isolation.Isolation, req: wire.Run) -> Program:
    """The program: compiled by its first run (a compile error is noted), kept compiled for the
    others when more follow (`req.cache`), loaded from there by them; an assert suite compiled
    by its one run; a call's arguments. The CPU the compiling takes is noted too: the sandbox
    does not count it as the program's."""
    t = time.process_time_ns()
    code = None
    if not req.first:
        try:
            code = marshal.loads(_read(_path(iso, wire.Files.CACHE)))
        except (OSError, ValueError, EOFError, TypeError):
            pass  # compiled again below
    loaded = code is not None
    if code is None:
        code = _compile(iso, _read(_path(iso, wire.Files.CODE)), "solution.py", "ce")
        if req.cache:
            cache = _path(iso, wire.Files.CACHE)
            fd = os.open(cache + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                wire.write_all(fd, marshal.dumps(code))
            finally:
                os.close(fd)
            os.replace(cache + ".tmp", cache)
    suite = None
    if req.kind == "assert":
        try:
            source = _read(_path(iso, wire.Files.SUITE))
        except FileNotFoundError:
            source = b""
        if source:
            suite = _compile(iso, source, "test.py", "se")
    if req.first or suite is not None or not loaded:  # compiled here: not the program's CPU
        fd = os.open(
            _path(iso, wire.Files.COMPILE_NS), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600
        )
        try:
            wire.write_all(fd, str(time.process_time_ns() - t).encode())
        finally:
            os.close(fd)
    call = None
    if req.kind == "call":
        call = _read(_path(iso, wire.Files.CALL)).decode("utf-8", "surrogatepass")
    return Program(code, suite, call)


def _compile(iso: isolation.Isolation, source: bytes, name: str, fault: str) -> types.CodeType:
    """Compile, or note why not: the program's fault (`ce`) or the suite's (`se`)."""
    try:
        return compile(source.decode("utf-8", "surrogatepass"), name, "exec", dont_inherit=True)
    except _COMPILE_ERRORS as e:
        if fault == "ce":
            _note(iso, ce="".join(traceback.format_exception_only(type(e), e))[-TAIL:])
        else:
            _note(iso, se=f"test code does not compile: {e}")
        raise _Noted from None


def _confine(iso: isolation.Isolation, lim: wire.RunLimits, keep: int | None = None) -> None:
    """Give the program its files and its limits, then drop to the run's uid. What every run has
    in common (no new privileges, no core dumps, HOME and TMPDIR, a fresh session keyring) the
    server set before forking, so each child spends less before the program starts. `keep`: a
    descriptor (a native program's executable) kept open as `_KEPT_FD`, close-on-exec."""
    os.setsid()
    # stdin: the test's input, or an empty file (made here) for runs that read none
    fds = [os.open(_path(iso, wire.Files.STDIN), os.O_RDONLY | os.O_CREAT, 0o600)]
    for n in (wire.Files.STDOUT, wire.Files.STDERR, wire.Files.RECORD):
        fds.append(os.open(_path(iso, n), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
    for i, fd in enumerate(fds):
        os.dup2(fd, i)
    if keep is not None:
        os.dup2(keep, _KEPT_FD, inheritable=False)
    os.closerange(4 if keep is None else _KEPT_FD + 1, 1 << 20)
    os.chdir(iso.rundir)
    # the rlimits, then (cleared by setresuid, so set after it) the parent-death signal
    native.drop_privileges(iso, lim)
    if keep is not None:
        return
    assert STDIO is not None
    # The program's streams replace the interpreter's originals too (typeshed marks those Final).
    sys.stdin = sys.__stdin__ = STDIO[0]  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = STDIO[1]  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = STDIO[2]  # type: ignore[misc]
    sys.argv = ["solution.py"]
    # `random` is not preloaded, so a program that imports it seeds it afresh from urandom.


def make_stdio() -> None:
    """The program's sys.stdin, sys.stdout and sys.stderr over fds 0, 1 and 2, shaped like a fresh
    interpreter's (fast-I/O templates read `.mode` and `.buffer`). Made once, in the server, which
    never uses them, while its fds 0-2 are /dev/null (seekable, like the run's files): every
    child starts with them untouched and only has to point fds 0-2 at its files (a file object
    keeps its descriptor's number, not what it is open on), which spares each child the cost of
    building nine objects."""
    global STDIO
    stdin = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False)),
        encoding="utf-8",
        errors="strict",
        newline="\n",
    )
    stdout = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
        encoding="utf-8",
        errors="strict",
        newline="\n",
    )
    stderr = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
        encoding="utf-8",
        errors="backslashreplace",
        newline="\n",
        line_buffering=True,
    )
    stdin.mode, stdout.mode, stderr.mode = "r", "w", "w"  # type: ignore[misc]
    STDIO = (stdin, stdout, stderr)


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


def _run_program(prog: Program, req: wire.Run) -> int:
    # Integers of any length convert to and from text, as on the judges' Pythons (before 3.11) and
    # PyPy: a reference that prints a 5,000-digit number is right. Its CPU counts against its limit.
    sys.set_int_max_str_digits(0)
    mod = types.ModuleType("__main__")
    mod.__dict__["__builtins__"] = builtins
    mod.__file__ = "solution.py"
    sys.modules["__main__"] = mod
    ns = mod.__dict__
    record: dict = {}
    code = 0
    typed_args = None
    if req.kind == "call" and req.batch:
        try:
            _run_calls(prog, req, ns, record)
        except BaseException as e:  # the program itself (not a call) failed: no call counts
            record["exc"] = type(e).__name__
            code = 1
        sys.modules.pop("__main__", None)
        del mod, ns
        return _finish(code, record, True)
    if req.kind == "call" and req.typed:  # {"args", "kwargs"}, values typed (valuecodec)
        call = json.loads(prog.call or "")  # before the program runs: it cannot alter this
        typed_args = (
            [_CODEC["decode"](a) for a in call["args"]],
            {k: _CODEC["decode"](v) for k, v in call["kwargs"].items()},
        )
    nodes = typed_args is not None and _has_nodes(typed_args)
    if typed_args is not None:  # as LeetCode's judge does; the program's own definitions replace
        exec(_NODE_CLASSES, ns)  # them (a converted suite's tests may hold no node: `root=None`)
    try:
        exec(prog.code, ns)
        if req.kind == "call":
            fn = _resolve(ns, req.entry)
            if typed_args is not None:
                if nodes:
                    typed_args = (
                        [_build_nodes(a, ns) for a in typed_args[0]],
                        {k: _build_nodes(v, ns) for k, v in typed_args[1].items()},
                    )
                value = fn(*typed_args[0], **typed_args[1])
                try:
                    record["result"] = _CODEC["dumps"](value)
                except (TypeError, ValueError) as e:
                    record["unserializable"] = f"{type(value).__name__}: {e}"[:200]
            else:
                args = json.loads(prog.call or "")
                value = fn(*args) if isinstance(args, list) else fn(args)
                try:
                    record["result"] = json.dumps(value, allow_nan=True)
                except (TypeError, ValueError) as e:
                    record["unserializable"] = f"{type(value).__name__}: {e}"[:200]
        elif req.kind == "assert":
            results: dict = {}

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

            record["asserts"] = results
            ns["__cm_record"] = __cm_record
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
        try:  # the traceback a fresh interpreter would print: without the harness's frame
            traceback.print_exception(
                type(e), e, e.__traceback__.tb_next if e.__traceback__ else None
            )
        except BaseException:
            pass
        code = 1
    sys.modules.pop("__main__", None)  # the program's objects become garbage for _finish
    del mod, ns
    fn = value = typed_args = args = None  # noqa: F841
    return _finish(code, record, True)


def _run_checker(task: dict[str, str]) -> int:
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
