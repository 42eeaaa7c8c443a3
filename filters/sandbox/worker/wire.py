"""Between the sandbox (`runner.py`) and its workers (`worker/main.py`): messages, files, limits, codes.

Both sides import this one file, so a message, a file or a limit is named once: the runner as
`filters.sandbox.worker.wire`, the worker (a standalone, stdlib-only script) as `wire`.

The control pipe carries only how to run (`Run`) and how a run ended (`RunEnd`), never data: a
message is a pickled `(op, body)` pair behind an 8-byte little-endian length, its body a plain
dict (`_asdict()` of the named tuples below, rebuilt on the other side, so neither side's module
path appears in a pickle). The data (the program, its input, its output, a checker's expected
answer) goes through files (`Files`) in the worker's I/O directory, which only root can enter:
the runner writes and reads them, and only the run's own child reads its inputs, before it drops
its privileges. So the worker's server never holds any data, and every run starts from its
pristine memory. (Named tuples, not dataclasses: `dataclasses` imports `inspect`, which would
make the worker, and every fork of it, larger.)
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
    "Files",
    "ExitCode",
    "RunLimits",
    "Run",
    "RunEnd",
    "STARVED_CAP",
    "answer_timeout",
    "frame",
    "body_of",
    "read_message",
    "write_all",
]

#: The length of the pickled message that follows.
HEADER = struct.Struct("<Q")

#: A run's wall-clock hard cap, in multiples of its ceiling on blocked time (`RunLimits.wall_s`):
#: the worker stops a run there, however starved of CPU a loaded machine keeps it
#: (`worker_monitor.watch`); time spent runnable counts against its CPU limit only.
STARVED_CAP = 10


def answer_timeout(wall_s: float) -> float:
    """How long the sandbox waits for a run's answer: past the worker's own hard cap on the run,
    so a run the load slowed down is never a harness fault (SE) that another run would not be."""
    return STARVED_CAP * wall_s + 30.0


class Op:
    """Message names. The worker sends `HELLO` once (body: the isolation in force, with its I/O
    directory); the runner sends `RUN` (answered with a `RunEnd` under the same name) and `QUIT`."""

    HELLO = "hello"
    RUN = "run"
    QUIT = "quit"


class Files:
    """The I/O directory's files. The runner writes a program's files once, and a run's inputs
    before each run; the worker removes the compiled cache when a program's first run starts, a
    run's inputs when it has ended, and its outputs before the next run starts, so nothing of
    one run is left for another to find."""

    CODE = "code"  # the program's source
    SUITE = "suite"  # an assert suite's source (instrumented)
    CACHE = "code.marshal"  # the compiled program, made by its first run's child
    BINARY = (
        "bin"  # a native program's executable, made by its compile run (or the sandbox's cache)
    )
    STDIN = "in"  # a stdio test's input
    CALL = "call"  # a call test's arguments (JSON)
    CHECK = "check"  # a check: JSON {checker, input, expected, actual}
    #: a native (testlib) check: the checker's executable (written before a program's checks),
    #: and the three files it is called with (`checker <input> <output> <answer>`)
    CHECKER = "checker"
    CHECK_INPUT = "chk_in"
    CHECK_OUTPUT = "chk_out"
    CHECK_ANSWER = "chk_ans"
    STDOUT = "out"
    STDERR = "err"
    RECORD = "res"  # JSON the run writes on fd 3: a call's result, the assertions' outcomes
    NOTE = "note"  # JSON the harness writes, as root, when it could not start the program
    COMPILE_NS = "compile_ns"  # the CPU (ns, digits) the harness spent compiling: not the program's
    INPUTS = (STDIN, CALL, CHECK, CHECK_INPUT, CHECK_OUTPUT, CHECK_ANSWER)
    OUTPUTS = (STDOUT, STDERR, RECORD, NOTE, COMPILE_NS)
    #: what a program's first run removes: the last program's compiled forms
    COMPILED = (CACHE, BINARY)


class ExitCode(enum.IntEnum):
    """Exit statuses of the worker's processes (a run's own exit status is the program's)."""

    OK = 0
    #: the worker stopped because the sandbox is gone (end of file, a quit, its parent died)
    STOPPED = 3
    #: the harness failed in a run's child before the program ran
    CHILD_FAILED = 70
    #: the harness could not start the program and says why in Files.NOTE (a compile error)
    NOTED = 71
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


class Run(NamedTuple):
    """Run once, in a fresh child: the program on the test in the input files, or a check."""

    limits: RunLimits
    io_mb: int  # MB of I/O space the run needs (its inputs, and its outputs at the limit)
    kind: str = "stdio"  # the program's test_type: stdio, call or assert
    entry: str | None = None
    check: bool = False  # a checker (Files.CHECK; a native one: Files.CHECKER), not the program
    call_check: bool = False  # assert: call check(<entry>) after the suite
    typed: bool = False  # call: arguments and result in valuecodec's typed JSON
    first: bool = True  # the program's first run: compile it (else load Files.CACHE)
    cache: bool = False  # more runs of this program follow: keep it compiled (Files.CACHE)
    language: str = "python"  # the program's language: "python", or "cpp" (Files.BINARY is run)
    #: a native program's compile run: the compiler's command (it reads the source on stdin); the
    #: worker adds where the executable goes and runs it as the run's user, under `limits`
    compiler: tuple[str, ...] | None = None
    #: call: Files.CALL holds a JSON list of calls, all made in this one child, each within
    #: `call_time_s` of CPU (for trusted programs only: references and their mutants)
    batch: bool = False
    call_time_s: float = 0.0
    #: batch: end after the first call that does not return (TLE, MLE, RE), for a run that stops
    #: at its first failure; the calls after it are not made
    stop: bool = False


class RunEnd(NamedTuple):
    """How a run ended, as the kernel saw it: no data, only sizes and counts."""

    exit_code: int | None = None  # None when killed by a signal
    signal: int | None = None
    killed: str | None = None  # "cpu", "mem" or "wall" when the worker stopped it
    cpu_ms: float = 0.0  # CPU of the run's whole process tree, without compiling the program
    wall_ms: float = 0.0
    peak_mem_kb: int = 0
    out_bytes: int = 0
    err_bytes: int = 0
    record_bytes: int = 0
    error: str | None = None  # the worker failed (a harness fault, never the program's)


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
    """The next (op, body) on a blocking descriptor; EOFError when the writer is gone."""
    (n,) = HEADER.unpack(_read_exact(fd, HEADER.size))
    return pickle.loads(_read_exact(fd, n))
