"""How a run ended, in the sandbox's terms: the worker's numbers and the files the run left.

The worker answers each run with numbers only (`wire.RunEnd`: exit status, signal, CPU, memory,
sizes); the output, the run's record and the harness's note are files in its I/O directory,
which only the sandbox reads (`IoDir`). `outcome` puts both together into a status (`Status`):
the runner then compares an `OK` run's output and gives the verdict.
"""

from __future__ import annotations

import json
import os
import signal
from typing import Any, NamedTuple

from filters.sandbox.worker.wire import ExitCode, Files, RunEnd, RunLimits

__all__ = ["Status", "Outcome", "IoDir", "outcome", "TAIL"]

#: the most of stderr (or of a harness error) kept
TAIL = 2000


class Status:
    """A run's status; the runner turns `OK` into AC or WA."""

    OK = "OK"
    CE = "CE"
    RE = "RE"
    TLE = "TLE"
    MLE = "MLE"
    OLE = "OLE"
    SE = "SE"


class Outcome(NamedTuple):
    """One run, as the runner judges it."""

    status: str
    error: str | None = None  # CE: the compiler's message; SE: what failed in the harness
    cpu_ms: float = 0.0  # the whole tree's CPU, without compiling the program
    wall_ms: float = 0.0
    peak_mem_kb: int = 0
    exit: str | None = None  # "exit N" or "signal NAME"
    stderr: str = ""  # its tail
    stdout: bytes | None = None  # stdio runs that ended OK
    record: dict[str, Any] | None = None  # what the run wrote on fd 3 (the program can forge it)


class IoDir:
    """A worker's I/O directory, reached from this process (through the worker's own root, since
    it lives in the worker's mount namespace): the runs' data, in and out."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_PATH | os.O_DIRECTORY)

    def write(self, name: str, data: bytes, mode: int = 0o600) -> None:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode, dir_fd=self.fd)
        try:
            os.fchmod(fd, mode)  # (the mode of a file that was there stays otherwise)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)

    def read(self, name: str, limit: int = 1 << 62, tail: int = 0) -> bytes:
        """The file's bytes: at most `limit`, or the last `tail`; empty when it is missing."""
        try:
            fd = os.open(name, os.O_RDONLY, dir_fd=self.fd)
        except FileNotFoundError:
            return b""
        try:
            size = os.fstat(fd).st_size
            if tail:
                os.lseek(fd, max(0, size - tail), os.SEEK_SET)
                limit = tail
            chunks, left = [], min(limit, size)  # read no more than is there: no big buffer
            while left > 0 and (chunk := os.read(fd, left)):
                chunks.append(chunk)
                left -= len(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def remove(self, *names: str) -> None:
        for name in names:
            try:
                os.unlink(name, dir_fd=self.fd)
            except FileNotFoundError:
                pass

    def close(self) -> None:
        os.close(self.fd)


#: what libstdc++ prints when an uncaught allocation failure ends a program (a program could print
#: it itself: it only turns its own runtime error into another failure)
_BAD_ALLOC = "std::bad_alloc"


def _json(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):  # a program can write anything there
        return None
    return value if isinstance(value, dict) else None


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:  # a real-time signal
        return str(sig)


#: How a run that crossed a limit ended, said by the limit (the verdict's), not by the signal that
#: happened to arrive: a program past its CPU time gets SIGXCPU from its rlimit or SIGKILL from
#: the monitor, whichever fires first (timing), and a record must not depend on it (issue 58).
_LIMIT_EXIT = {Status.TLE: "time limit", Status.MLE: "memory limit", Status.OLE: "output limit"}


def outcome(
    end: RunEnd, io: IoDir, limits: RunLimits, want_stdout: bool, native: bool = False
) -> Outcome:
    """The run's status, from how it ended and what it left (stdout only when `want_stdout`). A
    `native` program (C++) that an allocation failure aborted ran out of memory (MLE): its
    address space is capped a little above the limit, so a large `new` fails there."""
    if end.error is not None:
        return Outcome(Status.SE, error=end.error)
    if end.exit_code == ExitCode.NOTED:  # the harness's note, if it wrote one (a program cannot)
        note = _json(io.read(Files.NOTE)) or {}
        if isinstance(note.get("ce"), str):
            return Outcome(Status.CE, error=note["ce"])
        if isinstance(note.get("se"), str):
            return Outcome(Status.SE, error=note["se"])
    cpu_ms = end.cpu_ms
    cap = limits.output_bytes
    record = _json(io.read(Files.RECORD, end.record_bytes)) if 0 < end.record_bytes < cap else None
    stderr = ""
    if end.err_bytes:
        stderr = io.read(Files.STDERR, tail=TAIL).decode("utf-8", "replace")
    sig = end.signal
    exc = record.get("exc") if record else None
    if end.killed == "mem" or end.peak_mem_kb > limits.memory_mb * 1024:
        st = Status.MLE  # a real judge would have stopped it when it crossed the limit
    elif end.killed or cpu_ms > limits.time_s * 1000.0:
        st = Status.TLE
    elif max(end.out_bytes, end.err_bytes, end.record_bytes) >= cap or sig == signal.SIGXFSZ:
        st = Status.OLE
    elif exc == "MemoryError" or (native and sig == signal.SIGABRT and _BAD_ALLOC in stderr):
        st = Status.MLE
    elif sig == signal.SIGXCPU:
        st = Status.TLE
    elif sig is not None or end.exit_code != 0:
        st = Status.RE
    else:
        st = Status.OK
    stdout = (
        io.read(Files.STDOUT, min(cap, end.out_bytes)) if want_stdout and st == Status.OK else None
    )
    exit_ = _LIMIT_EXIT.get(st) or (f"signal {_signal_name(sig)}" if sig else f"exit {end.exit_code}")
    if st == Status.TLE:
        stderr = ""  # how far a program got in writing it before the kill is timing
    return Outcome(
        status=st,
        cpu_ms=cpu_ms,
        wall_ms=end.wall_ms,
        peak_mem_kb=end.peak_mem_kb,
        exit=exit_,
        stderr=stderr,
        stdout=stdout,
        record=record,
    )
