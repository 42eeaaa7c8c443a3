"""A run's child: read the run's inputs, confine the process, then run the program once
(`worker/program`, which exits like an interpreter) or execute a native one (`worker/native`).

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

import io
import json
import marshal
import os
import sys
import time
import traceback
import types
from typing import Any, NoReturn

import isolation
import native
import program
import wire
from program import TAIL, Program

#: where a native program's executable is held open until it is executed
_KEPT_FD = 4
_COMPILE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)

#: the program's stdio objects (make_stdio)
STDIO: tuple[io.TextIOWrapper, io.TextIOWrapper, io.TextIOWrapper] | None = None


class _Noted(Exception):
    """The program cannot start; the note says why."""


def run(iso: isolation.Isolation, req: wire.Run) -> NoReturn:
    """In the forked child: read the run's inputs, confine, run, and exit with the status."""
    code = wire.ExitCode.CHILD_FAILED
    try:
        native_program = req.language != "python" and not req.check
        native_check = req.language != "python" and req.check
        try:
            if req.compiler:  # a native program's compile run (worker_native)
                code = native.compile_program(iso, req)
            elif native_check:  # a testlib checker: its files given to it, read-only
                _confine(iso, req.limits, keep=native.open_checker(iso))
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
        if native_check:
            code = native.execute(_KEPT_FD, native.CHECKER_ARGV)
        elif native_program and not req.compiler:
            code = native.execute(_KEPT_FD)
        elif not req.compiler:
            if isinstance(task, dict):
                code = program.run_checker(task)
            elif req.kind == "call" and req.batch:
                code = program.run_batch(task, req)
            else:
                code = program.run_program(task, req)
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
