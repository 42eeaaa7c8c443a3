"""A native (C++) program made ready on a worker: its executable put in the worker's I/O directory,
from the sandbox's cache of binaries or compiled there in a confined run of its own, under the
compile's limits (`cpp.COMPILE_LIMITS` by default). `cpp` says how a program is compiled; the
worker compiles it (`worker/native`)."""

from __future__ import annotations

import errno

from filters.sandbox import checkers, cpp
from filters.sandbox.limits import Limits
from filters.sandbox.outcome import Outcome, Status, outcome
from filters.sandbox.process import WorkerDied, WorkerProcess
from filters.sandbox.worker.wire import Files, Op, Run, RunLimits, answer_timeout

__all__ = ["compile_native", "native_io_mb", "ready_checker"]


def native_io_mb(io_mb: int, compile_output_bytes: int) -> int:
    """A C++ program's runs need room for its compile too: its executable and its messages."""
    return io_mb + 2 * (compile_output_bytes >> 20) + 1


def compile_native(
    w: WorkerProcess, code: bytes, io_mb: int, limits: Limits, binaries: cpp.BinaryCache
) -> tuple[Outcome | None, float, int]:
    """Put the program's executable in the worker's I/O directory: from the cache, or
    compiled there in a run of its own under `limits`. (None, compile CPU ms, static bytes), or
    the outcome of a compile that failed (CE: the program's; SE: the harness's)."""
    tc = cpp.toolchain()
    if tc is None:
        return Outcome(Status.SE, error="no C++ compiler (g++) on this machine"), 0.0, 0
    command = tc.command()
    key = binaries.key(command, code)
    io = w.files()
    hit = binaries.get(key)
    try:
        if hit is not None:
            try:
                io.write(Files.BINARY, hit[0], mode=0o755)
                return None, 0.0, hit[1]
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                # a worker's I/O directory is sized by its runs (a fresh one's holds
                # `FRESH_IO_MB`): no room for this binary before a run sizes it (a sandbox
                # with larger compile limits), so compile it there
                io.remove(Files.BINARY)
        io.write(Files.CODE, code)
    except OSError as e:
        raise WorkerDied(f"cannot write to the worker's I/O directory: {e}") from None
    lim = RunLimits.of(limits)
    run = Run(limits=lim, io_mb=io_mb, language="cpp", compiler=command, first=True)
    end = w.call(Op.RUN, run, answer_timeout(lim.wall_s))
    try:
        r = outcome(end, io, lim, want_stdout=False)
        binary = io.read(Files.BINARY) if r.status == Status.OK else b""
    except OSError as e:
        raise WorkerDied(f"cannot read the worker's I/O directory: {e}") from None
    if r.status == Status.OK:
        record = r.record or {}
        static = record.get("static_bytes")
        if not binary or not isinstance(static, int):
            return Outcome(Status.SE, error="the compile left no executable"), end.cpu_ms, 0
        binaries.put(key, binary, static)
        return None, end.cpu_ms, static
    if r.status in (Status.CE, Status.SE):
        return r, end.cpu_ms, 0
    return Outcome(Status.CE, error=_over_limits(r, lim)), end.cpu_ms, 0


def _over_limits(r: Outcome, lim: RunLimits) -> str:
    """A compile stopped by its limits, as its CE says: the compiler's last words, then which."""
    why = {
        Status.TLE: f"its time limit ({lim.time_s:g} s of CPU)",
        Status.MLE: f"its memory limit ({lim.memory_mb:g} MB)",
        Status.OLE: f"its output limit ({lim.output_bytes >> 20} MB)",
    }.get(r.status, f"a failure ({r.exit})")
    return f"{r.stderr[-1500:]}\nthe compiler exceeded {why}".strip()


def ready_checker(
    w: WorkerProcess, checker: str, io_mb: int, cache: checkers.CheckerCache
) -> Outcome | None:
    """Put a C++ (testlib or standard) checker's executable in the worker's I/O directory
    (`Files.CHECKER`): from the disk cache, or compiled there first, in a confined run under
    `checkers.CHECKER_COMPILE_LIMITS`, and cached. None, or the SE that says why it cannot judge
    (no compiler, no testlib.h, a checker that does not compile: never the program's fault)."""
    tc = cpp.toolchain()
    if tc is None:
        return Outcome(Status.SE, error="no C++ compiler (g++) on this machine for the checker")
    try:
        source = checkers.checker_source(checker).encode("utf-8", "surrogateescape")
        command = checkers.checker_command(tc)
    except (OSError, ValueError) as e:
        return Outcome(Status.SE, error=f"the checker cannot be compiled: {e}")
    key = cache.key(command, source)
    io = w.files()
    try:
        with cache.compiling(key):
            if key in cache.failed:
                return Outcome(Status.SE, error=cache.failed[key])
            binary = cache.get(key)
            if binary is None:
                binary, failed = _compile_checker(w, source, command, io_mb)
                if failed is not None:
                    cache.failed[key] = failed.error or "the checker does not compile"
                    return failed
                cache.put(key, binary)
        io.write(Files.CHECKER, binary, mode=0o755)
    except OSError as e:
        raise WorkerDied(f"cannot use the worker's I/O directory: {e}") from None
    return None


def _compile_checker(
    w: WorkerProcess, source: bytes, command: tuple[str, ...], io_mb: int
) -> tuple[bytes, Outcome | None]:
    """A checker compiled on the worker, confined like a program's compile."""
    io = w.files()
    io.write(Files.CODE, source)
    lim = RunLimits.of(checkers.CHECKER_COMPILE_LIMITS)
    run = Run(limits=lim, io_mb=io_mb, language="cpp", compiler=command, first=True)
    end = w.call(Op.RUN, run, answer_timeout(lim.wall_s))
    r = outcome(end, io, lim, want_stdout=False)
    if r.status != Status.OK:
        why = (r.error or _over_limits(r, lim))[-1500:]
        return b"", Outcome(Status.SE, error=f"the checker does not compile: {why}")
    binary = io.read(Files.BINARY)
    io.remove(Files.BINARY, Files.CODE)
    if not binary:
        return b"", Outcome(Status.SE, error="the checker's compile left no executable")
    return binary, None
