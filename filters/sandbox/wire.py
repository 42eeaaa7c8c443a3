"""The pipe between the sandbox (`runner.py`) and its workers (`worker.py`): names, framing, codes.

Both sides import this one file, so a message or a limit is named once: the runner as
`filters.sandbox.wire`, the worker (a standalone, stdlib-only script) as `wire`. A message is a
pickled `(op, body)` pair behind an 8-byte little-endian length. Bodies travel as plain dicts
(`_asdict()` of the named tuples below) and are rebuilt on the other side, so neither side's
module path appears in a pickle. (Named tuples, not dataclasses: `dataclasses` imports `inspect`,
which would make the worker, and every fork of it, larger.)
"""

from __future__ import annotations

import enum
import os
import pickle
import struct
from typing import Any, NamedTuple

__all__ = [
    "HEADER",
    "Op",
    "Status",
    "ExitCode",
    "RunLimits",
    "Program",
    "TestRun",
    "CheckRun",
    "Answer",
    "frame",
    "body_of",
    "read_message",
    "write_all",
]

#: The length of the pickled message that follows.
HEADER = struct.Struct("<Q")


class Op:
    """Message names. The worker sends `HELLO` once (body: the isolation in force); the runner
    sends the rest. `START` and `END` bracket one session and get no answer; `PROG`, `TEST` and
    `CHECK` are answered inside it; `QUIT` stops the worker."""

    HELLO = "hello"
    START = "start"  # body: {"io_mb": MB of I/O space the session's runs need}
    PROG = "prog"  # body: Program -> Answer (OK, CE or SE)
    TEST = "test"  # body: TestRun -> Answer
    CHECK = "check"  # body: CheckRun -> Answer
    END = "end"
    QUIT = "quit"


class Status:
    """A run's status as the worker reports it; the runner turns `OK` into AC or WA."""

    OK = "OK"
    CE = "CE"
    RE = "RE"
    TLE = "TLE"
    MLE = "MLE"
    OLE = "OLE"
    SE = "SE"


class ExitCode(enum.IntEnum):
    """Exit statuses of the worker's processes (a run's own exit status is the program's)."""

    OK = 0
    #: a session stopped because the sandbox is gone (end of file, a quit, its server died)
    STOPPED = 3
    #: the harness failed in a forked process before it could do its work (a test's child before
    #: the program ran, a session before it served)
    CHILD_FAILED = 70
    #: a session's pid, mount and IPC namespaces could not be made (or its /proc mounted)
    NO_NAMESPACE = 71
    #: a session's init did not exit normally (killed by a signal)
    SESSION_KILLED = 73
    #: the program's output could not be flushed at exit (CPython's own status for that)
    FLUSH_FAILED = 120


class RunLimits(NamedTuple):
    """One run's limits as sent to the worker (resolved from `limits.Limits`)."""

    time_s: float
    wall_s: float
    rlimit_cpu_s: int
    memory_mb: float
    address_bytes: int
    output_bytes: int
    nproc: int
    nofile: int

    @classmethod
    def of(cls, limits: Any) -> RunLimits:
        """From a `Limits` (or anything with these attributes)."""
        return cls(**{name: getattr(limits, name) for name in cls._fields})


class Program(NamedTuple):
    """The program a session compiles once, and how its runs call it."""

    code: str
    kind: str  # test_type: stdio, call or assert
    entry: str | None = None
    test_code: str | None = None  # assert: the instrumented suite
    call_check: bool = False  # assert: call check(<entry>) after the suite
    typed: bool = False  # call: arguments and result in valuecodec's typed JSON


class TestRun(NamedTuple):
    """Run the session's program on one test (`input` is stdin for stdio, the call for call)."""

    input: str
    limits: RunLimits


class CheckRun(NamedTuple):
    """Run a checker, confined like a program: `check(input, expected, actual) -> bool`."""

    checker: str
    input: str
    expected: str
    actual: str
    limits: RunLimits


class Answer(NamedTuple):
    """What the worker answers to PROG (status and error only), TEST or CHECK."""

    status: str
    error: str | None = None  # CE, SE: what failed
    cpu_ms: float = 0.0  # CPU of the run's whole process tree
    wall_ms: float = 0.0
    peak_mem_kb: int = 0
    exit: str | None = None  # "exit N" or "signal NAME"
    stderr: str = ""  # the tail
    stdout: bytes | None = None  # stdio runs that ended OK
    res: dict[str, Any] | None = None  # the run's record (written by the program)


def frame(op: str, body: Any) -> bytes:
    """One message, ready to write: a named-tuple body (and its limits) is sent as a dict."""
    if isinstance(body, tuple) and hasattr(body, "_asdict"):
        body = {
            k: v._asdict() if isinstance(v, RunLimits) else v for k, v in body._asdict().items()
        }
    data = pickle.dumps((op, body), protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


def body_of(cls: type, body: dict[str, Any]) -> Any:
    """The named tuple a received body was made from (its `limits` rebuilt too)."""
    if "limits" in body:
        body = dict(body, limits=RunLimits(**body["limits"]))
    return cls(**body)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exact(fd: int, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return bytes(buf)


def read_message(fd: int) -> tuple[str, Any]:
    """The next (op, body) on a blocking descriptor; EOFError when the writer is gone. Reads
    exactly one message, so whoever reads next starts at the next one."""
    (n,) = HEADER.unpack(_read_exact(fd, HEADER.size))
    return pickle.loads(_read_exact(fd, n))
