"""A test's child: confine the freshly forked process, run the program once, exit like an interpreter.

Part of the worker script (stdlib only). `run` never returns: it ends the process with the
program's exit status. The program sees real file descriptors (stdin a file, stdout and stderr
files the session reads afterwards) and `sys.stdout` objects shaped like a fresh interpreter's.
Fd 3 carries the run's record (a call's result, the assertions' outcomes) back to the session.
"""

from __future__ import annotations

import atexit
import builtins
import gc
import io
import json
import os
import resource
import signal
import sys
import traceback
import types
from typing import Any, NamedTuple

import wire
import worker_isolation as isolation

#: the most of an error text kept
TAIL = 2000

# Typed plain data for `typed_calls` problems (valuecodec.py, stdlib only): loaded from its file so
# that the worker stays a self-contained script, with its own copy of the builtins so that a
# program that rebinds `len` or `isinstance` does not change how its result is written.
_CODEC: dict = {"__name__": "valuecodec", "__builtins__": dict(builtins.__dict__)}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "valuecodec.py")) as _f:
    exec(compile(_f.read(), "valuecodec.py", "exec"), _CODEC)


class Compiled(NamedTuple):
    """A session's program, compiled once; each test's child runs it afresh."""

    code: types.CodeType
    kind: str
    entry: str | None
    test: types.CodeType | None
    call_check: bool
    typed: bool


def run(iso: isolation.Isolation, paths: dict[str, str], lim: wire.RunLimits, task: Any) -> None:
    """In the forked child: confine, run `task` (a Compiled program with its TestRun, or a
    CheckRun), and exit with its status."""
    code = wire.ExitCode.CHILD_FAILED
    try:
        _confine(iso, paths, lim)
        if isinstance(task, wire.CheckRun):
            code = _run_checker(task)
        else:
            code = _run_program(*task)
    finally:
        os._exit(code)


def _confine(iso: isolation.Isolation, paths: dict[str, str], lim: wire.RunLimits) -> None:
    os.setsid()
    fds = [os.open(paths["in"], os.O_RDONLY)]
    for n in ("out", "err", "res"):
        fds.append(os.open(paths[n], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
    for i, fd in enumerate(fds):
        os.dup2(fd, i)
    os.closerange(4, 1 << 20)
    os.chdir(iso.rundir)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    setr = resource.setrlimit
    setr(resource.RLIMIT_CORE, (0, 0))
    setr(resource.RLIMIT_CPU, (lim.rlimit_cpu_s, lim.rlimit_cpu_s + 1))
    setr(resource.RLIMIT_AS, (lim.address_bytes, lim.address_bytes))
    setr(resource.RLIMIT_FSIZE, (lim.output_bytes, lim.output_bytes))
    setr(resource.RLIMIT_NOFILE, (lim.nofile, lim.nofile))
    isolation.libc.prctl(isolation.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if iso.root:
        setr(resource.RLIMIT_NPROC, (lim.nproc, lim.nproc))
        os.setgroups([])
        os.setresgid(iso.uid, iso.uid, iso.uid)
        os.setresuid(iso.uid, iso.uid, iso.uid)
        if iso.report["keyrings"]:
            isolation.keyctl(isolation.KEYCTL_JOIN_SESSION_KEYRING, None)  # a fresh, empty one
    # cleared by setresuid, so set after it
    isolation.libc.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    os.environ["HOME"] = iso.rundir
    os.environ["TMPDIR"] = iso.rundir
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
    sys.stdin = sys.__stdin__ = stdin
    sys.stdout = sys.__stdout__ = stdout
    sys.stderr = sys.__stderr__ = stderr
    sys.argv = ["solution.py"]
    # `random` is not preloaded, so a program that imports it seeds it afresh from urandom.


def _finish(code: int, record: dict | None, ns: dict | None) -> int:
    """Shut down like an interpreter: join threads, run atexit, collect, flush; then report."""
    threading = sys.modules.get("threading")  # not preloaded: importing it doubles fork cost
    if threading is not None:
        try:
            threading._shutdown()  # type: ignore[attr-defined]
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
    if ns is not None:
        try:
            ns.clear()
            gc.collect()
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
    if record is not None:
        try:
            data = json.dumps(record).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(3, view) :]
        except BaseException:
            pass
    return code


def _resolve(ns: dict, entry: str | None) -> Any:
    entry = (entry or "").strip()
    if "()." in entry:
        cls, meth = entry.split("().", 1)
        return getattr(ns[cls.strip()](), meth.strip())
    return eval(entry, ns)


def _run_program(prog: Compiled, test: wire.TestRun) -> int:
    mod = types.ModuleType("__main__")
    mod.__dict__["__builtins__"] = builtins
    mod.__file__ = "solution.py"
    sys.modules["__main__"] = mod
    ns = mod.__dict__
    record: dict = {}
    code = 0
    typed_args = None
    if prog.kind == "call" and prog.typed:  # {"args", "kwargs"}, values typed (valuecodec)
        call = json.loads(test.input)  # before the program runs: it cannot alter this
        typed_args = (
            [_CODEC["decode"](a) for a in call["args"]],
            {k: _CODEC["decode"](v) for k, v in call["kwargs"].items()},
        )
    try:
        exec(prog.code, ns)
        if prog.kind == "call":
            fn = _resolve(ns, prog.entry)
            if typed_args is not None:
                value = fn(*typed_args[0], **typed_args[1])
                try:
                    record["result"] = _CODEC["dumps"](value)
                except (TypeError, ValueError) as e:
                    record["unserializable"] = f"{type(value).__name__}: {e}"[:200]
            else:
                args = json.loads(test.input)
                value = fn(*args) if isinstance(args, list) else fn(args)
                try:
                    record["result"] = json.dumps(value, allow_nan=True)
                except (TypeError, ValueError) as e:
                    record["unserializable"] = f"{type(value).__name__}: {e}"[:200]
        elif prog.kind == "assert":
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
            if prog.test is not None:
                exec(prog.test, ns)
                if prog.call_check and callable(ns.get("check")) and prog.entry:
                    ns["check"](_resolve(ns, prog.entry))
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
    return _finish(code, record, ns)


def _run_checker(task: wire.CheckRun) -> int:
    ns: dict = {"__name__": "__checker__", "__builtins__": builtins}
    record: dict = {}
    code = 0
    try:
        exec(compile(task.checker, "checker.py", "exec"), ns)
        record["ok"] = bool(ns["check"](task.input, task.expected, task.actual))
    except BaseException as e:
        record["exc"] = type(e).__name__
        record["error"] = "".join(traceback.format_exception_only(type(e), e))[-TAIL:]
        code = 1
    return _finish(code, record, None)
