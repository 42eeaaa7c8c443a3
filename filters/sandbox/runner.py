"""`Sandbox`: run untrusted Python or C++ against a problem's tests on a pool of fork-server workers."""

from __future__ import annotations

import errno
import functools
import json
import os
import queue
import threading
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from filters.compare import DEFAULT_TOLERANCE, Comparison, compare_call, explain_stdio
from filters.sandbox import cpp
from filters.sandbox.any_order import holds_in_any_order
from filters.sandbox.assert_calls import judge_call
from filters.sandbox.asserts import instrument_asserts
from filters.sandbox.limits import (
    DEFAULT_MEMORY_LIMIT_MB,
    DEFAULT_OUTPUT_LIMIT_BYTES,
    DEFAULT_TIME_LIMIT_S,
    Limits,
)
from filters.sandbox.outcome import Outcome, Status, outcome
from filters.sandbox.process import WorkerDied, WorkerProcess
from filters.sandbox.result import VERDICTS, RunResult, TestResult, truncate
from filters.sandbox.wire import Files, Op, Run, RunLimits

__all__ = ["Sandbox", "Output", "default_workers"]

#: (problem, code) or (problem, code, run() keyword arguments for this job)
Job = tuple[dict[str, Any], str] | tuple[dict[str, Any], str, dict[str, Any]]
#: Calls of a batch run in one child (`Sandbox.run(batch=True)`): a run that stops at its first
#: failure wastes at most this many calls past it.
CALL_BATCH = 16
_COMPILE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


@dataclass(frozen=True)
class Output:
    """What a program printed (stdio) or returned (call: JSON, or typed text for converted asserts)
    on one input, unjudged; `status` is OK or the test's verdict (RE, TLE, MLE, OLE, CE, SE)."""

    status: str
    text: str | None = None
    cpu_ms: float = 0.0


def _io_mb(output_bytes: int, program_bytes: int, input_bytes: int) -> int:
    """MB of I/O space a program's runs need: the program (and its compiled cache), the longest
    input (or check), and stdout and stderr at the limit."""
    return (2 * output_bytes + 4 * program_bytes + 4 * input_bytes) // (1 << 20) + 2


def _native_io_mb(io_mb: int, compile_output_bytes: int) -> int:
    """A C++ program's runs need room for its compile too: its executable and its messages."""
    return io_mb + 2 * (compile_output_bytes >> 20) + 1


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


@functools.lru_cache(maxsize=4096)
def _instrumented(test_code: str) -> tuple[str, list[str], bool]:
    return instrument_asserts(test_code)


def _assert_verdicts(raw: Any) -> dict[int, str]:
    """The per-assertion verdicts of a run's record; a program can forge that record, so any
    malformed entry is dropped (it then counts as not passed) instead of crashing the judge."""
    out: dict[int, str] = {}
    if isinstance(raw, dict):
        for k, v in raw.items():
            try:
                out[int(k)] = v if v in VERDICTS and v != "SE" else "RE"
            except (TypeError, ValueError, OverflowError):
                continue
    return out


def _shutdown(workers: list[WorkerProcess]) -> None:
    for w in workers:
        w.kill()


class Sandbox:
    """A pool of confined fork-server workers; use as a context manager (`close()` kills them).

    `run(problem, code)` judges one program against a canonical problem record; `run_many` judges
    many in parallel. The time limit is CPU time; limits come from the arguments, then the
    problem's `time_limit_s` / `memory_limit_mb`, then the defaults given here. A program is
    Python unless `language="cpp"` says otherwise (C++: stdio problems; compiled once per
    program, confined like any run, under limits of its own: `cpp.COMPILE_LIMITS`).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        time_limit_s: float = DEFAULT_TIME_LIMIT_S,
        memory_limit_mb: float = DEFAULT_MEMORY_LIMIT_MB,
        output_limit_bytes: int = DEFAULT_OUTPUT_LIMIT_BYTES,
        tolerance: float = DEFAULT_TOLERANCE,
        retries: int = 2,
        hash_seed: int = 0,
        compile_limits: Limits = cpp.COMPILE_LIMITS,
    ) -> None:
        self.n_workers = workers or default_workers()
        #: a C++ program's compile: CPU time, memory, output (its executable, its messages)
        self.compile_limits = compile_limits
        self.time_limit_s = time_limit_s
        self.memory_limit_mb = memory_limit_mb
        self.output_limit_bytes = output_limit_bytes
        self.tolerance = tolerance
        self.retries = retries
        self.hash_seed = hash_seed
        self._all: list[WorkerProcess] = []
        self._idle: queue.Queue[WorkerProcess] = queue.Queue()
        self._lock = threading.Lock()
        self._closed = False
        self._binaries = cpp.BinaryCache()
        try:  # every worker sees the precompiled headers, built when a C++ program first comes
            self._visible: tuple[str, ...] = (str(cpp.pch_root()),)
        except OSError:
            self._visible = ()
        with ThreadPoolExecutor(self.n_workers) as ex:
            started = list(ex.map(lambda _: self._start_worker(), range(self.n_workers)))
        for w in started:
            self._all.append(w)
            self._idle.put(w)
        self._isolation = dict(started[0].isolation)
        self._finalizer = weakref.finalize(self, _shutdown, self._all)

    def with_hash_seed(self, hash_seed: int) -> Sandbox:
        """A new sandbox with the same workers and limits whose programs hash str with another
        seed (close it yourself); a rerun there shows output that follows set iteration order.
        It shares this sandbox's compiled C++ binaries (a hash seed changes nothing of them)."""
        sibling = Sandbox(
            self.n_workers,
            time_limit_s=self.time_limit_s,
            memory_limit_mb=self.memory_limit_mb,
            output_limit_bytes=self.output_limit_bytes,
            tolerance=self.tolerance,
            retries=self.retries,
            hash_seed=hash_seed,
            compile_limits=self.compile_limits,
        )
        sibling._binaries = self._binaries
        return sibling

    # ---- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill every worker and everything they started."""
        self._closed = True
        self._finalizer()

    @property
    def closed(self) -> bool:
        return self._closed

    def disown(self) -> None:
        """In a forked child: this pool belongs to the parent; never stop its workers from here."""
        self._finalizer.detach()
        self._closed = True

    def isolation_report(self) -> dict[str, Any]:
        """Which isolation is actually in force (for the manifest)."""
        iso = self._isolation
        return {
            "workers": self.n_workers,
            "unprivileged_user": bool(iso.get("user")),
            "network_namespace": bool(iso.get("netns")),
            "network": "none (empty network namespace)"
            if iso.get("netns")
            else "host network (not isolated)",
            "mount_namespace": bool(iso.get("mountns")),
            # SysV objects and POSIX message queues removed after each run
            "ipc_namespace": bool(iso.get("ipcns")),
            "posix_message_queues_removed": bool(iso.get("mqueues_cleared")),
            # SysV shared memory and message queues, held by no process, capped per namespace
            "ipc_memory_mb": iso.get("ipc_shm_mb"),
            "keyrings": "fresh session keyring per run; the run user's keyrings cleared"
            if iso.get("keyrings")
            else "inherited (not isolated)",
            "private_tmp": bool(iso.get("private_tmp")),
            "scratch_mb": iso.get("scratch_mb"),  # what a run may write to each private tmpfs
            "private_home": bool(iso.get("host_hidden")),
            "host_files": "hidden: only system directories and the interpreter's library are visible"
            if iso.get("host_hidden")
            else "visible: the program can read any file the run's user can",
            "pid_namespace": bool(iso.get("pidns")),  # one per worker, killed with it
            # its /proc shows a program only the processes of the run's uid: its own tree
            "processes_hidden": bool(iso.get("proc_hidden")),
            # each run is a child forked from a server that never holds a program or its data
            # (they pass through files the sandbox writes and reads): nothing of one run is in
            # another's memory
            "memory_between_programs": "fresh process per run, from a server that never holds data",
            "io_directory": iso.get("iodir"),  # where a run's data passes (root only)
            "process_cleanup": iso.get("kill"),
            "child_subreaper": bool(iso.get("subreaper")),
            "no_new_privs": bool(iso.get("no_new_privs")),
            "environment": "scrubbed",
            "hash_seed": self.hash_seed,
            "time_limit": "CPU time of the whole process tree (measured, and RLIMIT_CPU per process); "
            "ceiling of 3x + 1 s on blocked time (hard cap 10x)",
            "memory_limit": "resident memory of the whole process tree (measured, and RLIMIT_AS per process)",
            "rlimits": ["CPU", "AS", "FSIZE", "NOFILE", "NPROC", "CORE"],
        }

    # ---- workers ----------------------------------------------------------------------------
    def _acquire(self) -> WorkerProcess:
        if self._closed:
            raise RuntimeError("sandbox is closed")
        return self._idle.get()

    def _release(self, w: WorkerProcess) -> None:
        if not w.alive():
            w = self._replace(w)
        self._idle.put(w)

    def _start_worker(self) -> WorkerProcess:
        return WorkerProcess(hash_seed=self.hash_seed, visible=self._visible)

    def _replace(self, w: WorkerProcess) -> WorkerProcess:
        w.kill()
        new = self._start_worker()
        with self._lock:
            self._all[self._all.index(w)] = new
        return new

    # ---- public API -------------------------------------------------------------------------
    @staticmethod
    def _language(problem: dict[str, Any], language: str | None) -> str:
        lang = cpp.language_of(language)
        if lang != "python" and (problem.get("test_type") or "stdio") != "stdio":
            raise ValueError(f"{lang} programs are judged on stdio problems only")
        return lang

    def limits_for(
        self,
        problem: dict[str, Any],
        time_limit_s: float | None = None,
        memory_limit_mb: float | None = None,
    ) -> Limits:
        t = time_limit_s or problem.get("time_limit_s") or self.time_limit_s
        m = memory_limit_mb or problem.get("memory_limit_mb") or self.memory_limit_mb
        return Limits(time_s=float(t), memory_mb=float(m), output_bytes=self.output_limit_bytes)

    def run(
        self,
        problem: dict[str, Any],
        code: str,
        *,
        time_limit_s: float | None = None,
        memory_limit_mb: float | None = None,
        tests: Sequence[dict[str, str]] | None = None,
        stop_on_failure: bool = False,
        language: str | None = None,
        batch: bool = False,
        batch_call_s: float | None = None,
        defer_slow: bool = False,
    ) -> RunResult:
        """Judge one program against `problem` (or the given `tests`); never raises for bad code.

        `language`: "python" (the default) or "cpp" (ValueError for another, or for C++ on a
        problem whose tests are not stdio).
        `batch` (Python call tests; for trusted programs only, references and their mutants, never
        a completion): the calls run `CALL_BATCH` at a time in one child, each within the time
        limit (its share of the program's start-up counted, as in a run of its own), judged as one
        run a test is; a batch whose program does not start or whose child dies runs one child a
        test. The calls of a batch share the program's state (a class attribute one call changes),
        so a test that fails in a batch is run again in a child of its own, under the full limit,
        and that run's verdict counts: no failure comes from batching. With `stop_on_failure` a
        batch ends at its first call that does not return. `batch_call_s`: a call's CPU time in a
        batch (at most the time limit; default the limit): past it the call stops and its test runs
        alone, so a program that loops costs that much more, not the limit, inside the batch.
        `defer_slow` (with `batch` and `stop_on_failure`, where only whether the program fails
        matters: verify's mutants): the first test whose call passes that budget is judged last,
        alone under the full limit, so a failure on a later test ends the run without spending
        the limit on it; the verdict is then that later failure's.
        """
        lang = self._language(problem, language)
        limits = self.limits_for(problem, time_limit_s, memory_limit_mb)
        result = RunResult("SE", language=lang)
        for attempt in range(1, self.retries + 2):
            w = self._acquire()
            try:
                result = self._judge(w, problem, code, limits, tests, stop_on_failure, lang,
                                     batch, batch_call_s, defer_slow)  # fmt: skip
            except WorkerDied as e:
                w = self._replace(w)
                result = RunResult("SE", error=str(e), time_limit_s=limits.time_s)
            finally:
                self._release(w)
            result.attempts = attempt
            result.language = lang
            if result.verdict != "SE":
                break
        return result

    def run_many(
        self,
        jobs: Sequence[Job],
        *,
        time_limit_s: float | None = None,
        memory_limit_mb: float | None = None,
        stop_on_failure: bool = False,
        language: str | None = None,
    ) -> list[RunResult]:
        """Judge many (problem, code[, options]) jobs in parallel across the workers, in job order.

        A job's own options (a dict of `run` keyword arguments, `language` among them) override
        the shared ones.
        """
        if not jobs:
            return []
        shared = {
            "time_limit_s": time_limit_s,
            "memory_limit_mb": memory_limit_mb,
            "stop_on_failure": stop_on_failure,
            "language": language,
        }

        def one(job: Job) -> RunResult:
            opts = dict(shared, **(job[2] if len(job) > 2 else {}))
            return self.run(job[0], job[1], **opts)

        with ThreadPoolExecutor(min(self.n_workers, len(jobs))) as ex:
            return list(ex.map(one, jobs))

    def outputs(
        self,
        problem: dict[str, Any],
        code: str,
        inputs: Sequence[str],
        *,
        time_limit_s: float | None = None,
        memory_limit_mb: float | None = None,
        language: str | None = None,
    ) -> list[Output]:
        """Run `code` (Python, or `language="cpp"`) on each input of a stdio or call problem and
        return what it printed or returned, unjudged: how new tests are labelled with a
        reference solution."""
        kind = problem.get("test_type") or "stdio"
        if kind == "assert":
            raise ValueError("outputs() needs stdio or call tests; convert an assert suite first")
        lang = self._language(problem, language)
        limits = self.limits_for(problem, time_limit_s, memory_limit_mb)
        out: list[Output] = [Output(Status.SE)] * len(inputs)
        for _ in range(self.retries + 1):
            w = self._acquire()
            try:
                out = self._outputs(w, problem, code, list(inputs), limits, kind, lang)
            except WorkerDied:
                w = self._replace(w)
                out = [Output(Status.SE)] * len(inputs)
            finally:
                self._release(w)
            if all(o.status != Status.SE for o in out):
                break
        return out

    def _outputs(
        self,
        w: WorkerProcess,
        problem: dict[str, Any],
        code: str,
        inputs: list[str],
        limits: Limits,
        kind: str,
        lang: str = "python",
    ) -> list[Output]:
        if not inputs:
            return []
        code_bytes = code.encode("utf-8", "surrogatepass")
        io_mb = _io_mb(limits.output_bytes, len(code_bytes), max(map(len, inputs)))
        native = lang != "python"
        if native:
            io_mb = _native_io_mb(io_mb, self.compile_limits.output_bytes)
            failed, _, static = self._compile(w, code_bytes, io_mb)
            if failed is not None:
                return [Output(failed.status)] * len(inputs)
            if static > limits.memory_mb * (1 << 20):
                return [Output(Status.MLE)] * len(inputs)
        else:
            w.files().write(Files.CODE, code_bytes)
        run = Run(
            limits=RunLimits.of(limits),
            io_mb=io_mb,
            kind=kind,
            entry=problem.get("entry_point"),
            call_check=False,
            typed=kind == "call" and bool(problem.get("typed_calls")),
            first=False,
            language=lang,
        )
        timeout = limits.wall_s + 30.0
        out: list[Output] = []
        for i, text in enumerate(inputs):
            first = i == 0 and not native  # (a native program's binary is made: keep it)
            this = run._replace(first=True, cache=len(inputs) > 1) if first else run
            r = self._run(w, this, text, timeout)
            if r.status in (Status.CE, Status.SE):  # did not compile (first run), harness fault
                return [Output(r.status)] * len(inputs)
            if r.status != Status.OK:
                out.append(Output(r.status, None, r.cpu_ms))
                continue
            if kind == "stdio":
                value: Any = (r.stdout or b"").decode("utf-8", "replace")
            else:
                value = (r.record or {}).get("result")
            ok = isinstance(value, str)  # the program can write any record there
            out.append(Output(Status.OK if ok else Status.RE, value if ok else None, r.cpu_ms))
        return out

    # ---- judging ----------------------------------------------------------------------------
    def _judge(
        self,
        w: WorkerProcess,
        problem: dict[str, Any],
        code: str,
        limits: Limits,
        tests: Sequence[dict[str, str]] | None,
        stop: bool,
        lang: str = "python",
        batch: bool = False,
        batch_call_s: float | None = None,
        defer_slow: bool = False,
    ) -> RunResult:
        kind = problem.get("test_type") or "stdio"
        test_list = list(tests if tests is not None else (problem.get("tests") or []))
        if lang != "python":
            return self._judge_native(w, problem, code, limits, test_list, stop, lang)
        test_code = None
        assert_texts: list[str] = []
        call_check = False
        typed = kind == "call" and bool(problem.get("typed_calls"))
        if kind == "assert":
            try:
                test_code, assert_texts, call_check = _instrumented(problem.get("test_code") or "")
            except (SyntaxError, ValueError, RecursionError) as e:
                return RunResult(
                    "SE", error=f"test code does not parse: {e}", time_limit_s=limits.time_s
                )
        if kind != "assert" and not test_list:  # nothing to run: it only has to compile
            try:
                compile(code, "solution.py", "exec", dont_inherit=True)
            except _COMPILE_ERRORS as e:
                return self._not_run(
                    Outcome(Status.CE, error=f"{type(e).__name__}: {e}"), 0, limits
                )
            return self._summary("AC", [], 0, None, limits)
        checker = problem.get("checker")
        io = w.files()
        code_bytes = code.encode("utf-8", "surrogatepass")
        suite_bytes = (test_code or "").encode("utf-8", "surrogatepass")
        longest = max(
            (len(t["input"]) + (len(t["output"]) if checker else 0) for t in test_list), default=0
        )
        io_mb = _io_mb(limits.output_bytes, len(code_bytes) + len(suite_bytes), longest)
        io.write(Files.CODE, code_bytes)  # its first run compiles it (the worker drops the last)
        if kind == "assert":
            io.write(Files.SUITE, suite_bytes)
        run = Run(
            limits=RunLimits.of(limits),
            io_mb=io_mb,
            kind=kind,
            entry=problem.get("entry_point"),
            call_check=call_check,
            typed=typed,
            first=False,
        )
        if kind == "assert":
            return self._judge_assert(w, run, assert_texts, limits.wall_s + 30.0, limits)
        return self._judge_stdio(w, problem, run, test_list, limits, stop, batch, batch_call_s,
                                 defer_slow)  # fmt: skip

    def _judge_stdio(
        self,
        w: WorkerProcess,
        problem: dict[str, Any],
        run: Run,
        test_list: list[dict[str, str]],
        limits: Limits,
        stop: bool,
        batch: bool = False,
        batch_call_s: float | None = None,
        defer_slow: bool = False,
    ) -> RunResult:
        """Each stdio or call test in a run of its own, judged here (or by the checker); with
        `batch`, call tests in batches, a test that fails in one rerun alone (`run`)."""
        kind, typed = run.kind, run.typed
        checker = problem.get("checker")
        mode = Comparison.parse(problem.get("comparison"))
        total = len(test_list)
        timeout = limits.wall_s + 30.0
        results: list[TestResult] = []
        first: dict[str, Any] | None = None
        verdict = "AC"
        batched = (
            _Batches(self, w, run, test_list, limits, stop, batch_call_s)
            if batch and kind == "call" and not checker
            else None
        )
        deferred: list[int] = []  # `defer_slow`: a test past the batch's budget, judged last

        def judged(i: int, t: dict[str, str], r: Outcome) -> bool:
            """Record test i's verdict; whether the run stops there."""
            nonlocal verdict, first
            v, actual, reason = self._verdict(r, t, kind, typed, checker, mode)
            # "check" (a checker and an output): in a run of its own, where the expected answer
            # never enters the program's
            if v == "check" and checker and actual is not None:
                v, reason = self._check(w, run, checker, t, actual, timeout)
            results.append(TestResult(i, v, r.cpu_ms, r.wall_ms, r.peak_mem_kb))
            if v != "AC" and first is None:
                verdict = v
                first = {
                    "test": i,
                    "verdict": v,
                    "input": truncate(t["input"]),
                    "expected": truncate(t["output"]),
                    "actual": truncate(actual),
                    "reason": reason,
                    "exit": r.exit,
                    "stderr": truncate(r.stderr, 1000),
                }
                return stop
            return False

        defer = defer_slow and stop and batched is not None
        for i, t in enumerate(test_list):
            # a Python program's first run compiles it, and keeps it compiled when more follow
            if i == 0 and run.language == "python":
                this = run._replace(first=True, cache=len(test_list) > 1)
            else:
                this = run
            if batched is not None and i in batched:
                r = batched[i]
                v = self._verdict(r, t, kind, typed, checker, mode)[0]
                if v == "WA" and not batched.fresh(i):
                    # what the calls of a batch share may fail a test that passes alone: a wrong
                    # answer is asked again of a fresh child, in a batch that starts there
                    batched.restart(i)
                    r = batched[i] if i in batched else r
                    v = self._verdict(r, t, kind, typed, checker, mode)[0]
                if (defer and not deferred and v == Status.TLE and r.exit == "batch"
                        and batched.call_s < limits.time_s):  # fmt: skip
                    deferred.append(i)  # past the budget: judged last, if nothing fails before
                    continue
                if v not in ("AC", "WA") or (v == "WA" and not batched.fresh(i)):
                    # a crash or a limit (the call's budget in a batch, the memory the batch
                    # holds, the depth of its stack) is confirmed in a child of its own (the
                    # batch compiled and cached the program), under the full limit
                    r = self._run(w, run, t["input"], timeout)
            else:
                r = self._run(w, this, t["input"], timeout)
            if r.status in (Status.CE, Status.SE):  # did not compile (first run), harness fault
                return self._not_run(r, total, limits)
            if judged(i, t, r):
                break
        else:
            for i in deferred:  # nothing failed after it: alone, under the full limit
                r = self._run(w, run, test_list[i]["input"], timeout)
                if r.status in (Status.CE, Status.SE):
                    return self._not_run(r, total, limits)
                judged(i, test_list[i], r)
            results.sort(key=lambda x: x.index)
        return self._summary(verdict, results, total, first, limits)

    def _judge_native(
        self,
        w: WorkerProcess,
        problem: dict[str, Any],
        code: str,
        limits: Limits,
        test_list: list[dict[str, str]],
        stop: bool,
        lang: str,
    ) -> RunResult:
        """A compiled program: compiled once (or taken from the cache), then run on each test
        through the same confinement as a Python program's runs."""
        code_bytes = code.encode("utf-8", "surrogatepass")
        checker = problem.get("checker")
        longest = max(
            (len(t["input"]) + (len(t["output"]) if checker else 0) for t in test_list), default=0
        )
        io_mb = _native_io_mb(
            _io_mb(limits.output_bytes, len(code_bytes), longest), self.compile_limits.output_bytes
        )
        failed, compile_ms, static = self._compile(w, code_bytes, io_mb)
        if failed is None and static > limits.memory_mb * (1 << 20):
            failed = Outcome(
                Status.MLE,
                error=f"its static data ({static >> 20} MB) exceeds the memory limit",
            )
        if failed is not None:
            out = self._not_run(failed, len(test_list), limits)
        else:
            run = Run(
                limits=RunLimits.of(limits),
                io_mb=io_mb,
                kind="stdio",
                first=False,  # (its binary is in place: a first run would remove it)
                language=lang,
            )
            out = self._judge_stdio(w, problem, run, test_list, limits, stop)
        out.compile_ms = compile_ms
        return out

    def _compile(
        self, w: WorkerProcess, code: bytes, io_mb: int
    ) -> tuple[Outcome | None, float, int]:
        """Put the program's executable in the worker's I/O directory: from the cache, or
        compiled there in a run of its own. (None, compile CPU ms, static bytes), or the outcome
        of a compile that failed (CE: the program's; SE: the harness's)."""
        tc = cpp.toolchain()
        if tc is None:
            return Outcome(Status.SE, error="no C++ compiler (g++) on this machine"), 0.0, 0
        command = tc.command()
        key = self._binaries.key(command, code)
        io = w.files()
        hit = self._binaries.get(key)
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
        lim = RunLimits.of(self.compile_limits)
        run = Run(limits=lim, io_mb=io_mb, language="cpp", compiler=command, first=True)
        end = w.call(Op.RUN, run, lim.wall_s + 30.0)
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
            self._binaries.put(key, binary, static)
            return None, end.cpu_ms, static
        if r.status in (Status.CE, Status.SE):
            return r, end.cpu_ms, 0
        why = {
            Status.TLE: f"its time limit ({lim.time_s:g} s of CPU)",
            Status.MLE: f"its memory limit ({lim.memory_mb:g} MB)",
            Status.OLE: f"its output limit ({lim.output_bytes >> 20} MB)",
        }.get(r.status, f"a failure ({r.exit})")
        text = f"{r.stderr[-1500:]}\nthe compiler exceeded {why}".strip()
        return Outcome(Status.CE, error=text), end.cpu_ms, 0

    @staticmethod
    def _not_run(r: Outcome, total: int, limits: Limits) -> RunResult:
        """A program that does not compile (CE), or a harness fault (SE: the suite does not
        compile, the worker failed): no test counts."""
        return RunResult(
            r.status,
            0,
            total,
            first_failure={"verdict": r.status, "stderr": r.error},
            time_limit_s=limits.time_s,
            error=r.error if r.status == Status.SE else None,
        )

    @staticmethod
    def _run(w: WorkerProcess, run: Run, test_input: str, timeout: float) -> Outcome:
        """One run of the program: its input written, the worker's answer, its outcome."""
        io = w.files()
        try:
            if run.kind == "stdio":
                io.write(Files.STDIN, test_input.encode("utf-8", "surrogateescape"))
            elif run.kind == "call":
                io.write(Files.CALL, test_input.encode("utf-8", "surrogatepass"))
        except UnicodeEncodeError as e:
            return Outcome(Status.SE, error=f"the test's input cannot be written: {e}")
        except OSError as e:
            raise WorkerDied(f"cannot write to the worker's I/O directory: {e}") from None
        end = w.call(Op.RUN, run, timeout)
        try:
            native = run.language != "python" and not run.check
            return outcome(end, io, run.limits, want_stdout=run.kind == "stdio", native=native)
        except OSError as e:
            raise WorkerDied(f"cannot read the worker's I/O directory: {e}") from None

    def _verdict(
        self,
        r: Outcome,
        t: dict[str, str],
        kind: str,
        typed: bool,
        checker: str | None,
        mode: Comparison,
    ) -> tuple[str, str | None, str | None]:
        """(verdict, actual output, reason) of one test's run; "check" when a checker decides."""
        v = r.status
        if v != Status.OK:
            return v, None, None
        actual: str | None
        if kind == "stdio":
            actual = (r.stdout or b"").decode("utf-8", "replace")
        else:
            actual = (r.record or {}).get("result")
            if not isinstance(actual, str):  # the program can write any record there
                actual = None
        if actual is None:
            return "RE", None, (r.record or {}).get("unserializable") or "no return value"
        if typed:  # an assertion converted to a call (assert_calls): judged here
            v, reason = judge_call(t, actual)
            if v == "WA" and mode.any_order and holds_in_any_order(t, actual):
                v, reason = "AC", None
            return v, actual, reason
        if checker:
            return "check", actual, None
        if kind == "stdio":
            reason = explain_stdio(t["output"], actual, self.tolerance, mode)
            return ("AC" if reason is None else "WA"), actual, reason
        ok = compare_call(t["output"], actual, self.tolerance, mode)
        return ("AC" if ok else "WA"), actual, None

    def _check(
        self,
        w: WorkerProcess,
        run: Run,
        checker: str,
        t: dict[str, str],
        actual: str,
        timeout: float,
    ) -> tuple[str, str | None]:
        """The checker's verdict on one output, in a fresh child of its own (a program's children
        never hold an expected answer)."""
        task = {"checker": checker, "input": t["input"], "expected": t["output"], "actual": actual}
        limits = run.limits._replace(time_s=10.0, wall_s=31.0, rlimit_cpu_s=11)
        check = Run(limits=limits, io_mb=run.io_mb, check=True, first=False)
        try:
            w.files().write(Files.CHECK, json.dumps(task).encode())
        except OSError as e:
            raise WorkerDied(f"cannot write to the worker's I/O directory: {e}") from None
        r = self._run(w, check, "", timeout + 30)
        res = r.record or {}
        if r.status == Status.OK and res.get("ok") is True:
            return "AC", None
        if r.status == Status.OK:
            return "WA", "checker rejected the output"
        return "WA", f"checker failed ({r.status}): {res.get('error') or r.stderr}"[:500]

    def _judge_assert(
        self, w: WorkerProcess, run: Run, texts: list[str], timeout: float, limits: Limits
    ) -> RunResult:
        total = max(1, len(texts))
        r = self._run(w, run._replace(first=True), "", timeout)
        status = r.status
        if status in (Status.CE, Status.SE):  # did not compile, harness fault
            return self._not_run(r, total, limits)
        res = r.record or {}
        asserts = _assert_verdicts(res.get("asserts"))
        if status == Status.OK and not res.get("done"):
            status = "RE"  # the program ended the process before its tests finished
        # An assertion that never reported in a run that finished never ran: a program can skip
        # the suite (a tracer that jumps over it, a `check` replaced before it is called), so it
        # does not count as passed. (A suite without assert statements passes by finishing.)
        unrun = "WA" if texts else "AC"
        results = []
        for i in range(total):
            v = asserts.get(i, status if status != Status.OK else unrun)
            results.append(TestResult(i, v, r.cpu_ms / total, r.wall_ms / total, r.peak_mem_kb))
        bad = [t for t in results if t.verdict != "AC"]
        verdict = status if status != Status.OK else (bad[0].verdict if bad else "AC")
        if status != Status.OK:
            for t in results:  # a crash or limit ends the run: nothing after it counts as passed
                if t.index not in asserts:
                    t.verdict = status
        first = None
        if verdict != "AC":
            idx = bad[0].index if bad else 0
            first = {
                "test": idx,
                "verdict": verdict,
                "input": truncate(texts[idx]) if idx < len(texts) else None,
                "expected": None,
                "actual": None,
                "reason": res.get("first_error")
                or (
                    (f"assertion {idx} failed" if idx in asserts else f"assertion {idx} never ran")
                    if bad
                    else None
                ),
                "exit": r.exit,
                "stderr": truncate(r.stderr, 1000),
            }
        out = self._summary(verdict, results, total, first, limits)
        out.cpu_ms, out.wall_ms = r.cpu_ms, r.wall_ms
        return out

    @staticmethod
    def _summary(
        verdict: str,
        results: list[TestResult],
        total: int,
        first: dict[str, Any] | None,
        limits: Limits,
    ) -> RunResult:
        return RunResult(
            verdict=verdict,
            tests_passed=sum(t.verdict == "AC" for t in results),
            tests_total=total,
            cpu_ms=sum(t.cpu_ms for t in results),
            wall_ms=sum(t.wall_ms for t in results),
            peak_mem_kb=max((t.peak_mem_kb for t in results), default=0),
            tests=results,
            first_failure=first,
            time_limit_s=limits.time_s,
        )


class _Batches:
    """The outcomes of a batched call run's tests (see `Sandbox.run`'s `batch`), batch by batch as
    they are asked for: a mapping test index -> Outcome. The calls run `CALL_BATCH` at a time in
    one child each, lazily (a run that stops at its first failure runs no batch past it); a batch
    starts at the first test asked for that no batch answered (with `stop`, a batch ends at its
    first call that does not return). An index whose batch did not run cleanly is not in it: that
    test runs one child of its own. The first call of a batch runs in a fresh child, as a test
    alone does (`fresh`); `restart(i)` runs the batch again from test i."""

    def __init__(
        self,
        sb: Sandbox,
        w: WorkerProcess,
        run: Run,
        tests: list[dict[str, str]],
        limits: Limits,
        stop: bool = False,
        call_s: float | None = None,
    ) -> None:
        self.sb, self.w, self.run, self.tests, self.limits = sb, w, run, tests, limits
        self.stop = stop
        self.call_s = min(call_s, limits.time_s) if call_s else limits.time_s
        self.done: dict[int, Outcome | None] = {}
        self.first = True
        self.starts: set[int] = set()

    def fresh(self, i: int) -> bool:
        """Whether test i was the first call of its batch: nothing ran before it in that child."""
        return i in self.starts

    def restart(self, i: int) -> None:
        """Forget the outcomes from test i on: the next asked for runs a batch from there."""
        for k in [k for k in self.done if k >= i]:
            del self.done[k]

    def __contains__(self, i: object) -> bool:
        if not isinstance(i, int) or not 0 <= i < len(self.tests):
            return False
        if i not in self.done:
            self._run_batch(i)
        return self.done.get(i) is not None

    def __getitem__(self, i: int) -> Outcome:
        out = self.done.get(i)
        if out is None:
            raise KeyError(i)
        return out

    def _run_batch(self, start: int) -> None:
        chunk = self.tests[start : start + CALL_BATCH]
        n = len(chunk)
        per = self.call_s
        whole = Limits(time_s=per * (n + 1), memory_mb=self.limits.memory_mb,
                       output_bytes=self.limits.output_bytes)  # fmt: skip
        text = json.dumps([t["input"] for t in chunk])
        run = self.run._replace(
            limits=RunLimits.of(whole), batch=True, call_time_s=per, first=self.first,
            cache=True, io_mb=self.run.io_mb + 4 * len(text) // (1 << 20) + 1, stop=self.stop,
        )  # fmt: skip
        self.first = False
        r = self.sb._run(self.w, run, text, whole.wall_s + 30.0)
        calls = (r.record or {}).get("calls") if r.status == Status.OK else None
        # with `stop`, the batch ends at its first call that did not return
        short = (
            self.stop and isinstance(calls, list) and 0 < len(calls) < n
            and isinstance(calls[-1], dict) and "status" in calls[-1]
        )  # fmt: skip
        if (
            not isinstance(calls, list)
            or (len(calls) != n and not short)
            or not (r.record or {}).get("done")
        ):
            for k in range(n):  # the program did not start, or its child died: one run a test
                self.done[start + k] = None
            return
        self.starts.add(start)
        for k, c in enumerate(calls):  # (the calls a stop left out are asked for again later)
            self.done[start + k] = self._outcome(c, r) if isinstance(c, dict) else None

    @staticmethod
    def _outcome(c: dict[str, Any], r: Outcome) -> Outcome:
        cpu = c.get("cpu_ms")
        cpu_ms = float(cpu) if isinstance(cpu, (int, float)) else 0.0
        status = c.get("status")
        if status in (Status.TLE, Status.MLE, Status.RE):
            return Outcome(status, cpu_ms=cpu_ms, wall_ms=cpu_ms, peak_mem_kb=r.peak_mem_kb,
                           exit="batch", stderr=str(c.get("error") or "")[-2000:])  # fmt: skip
        record: dict[str, Any] = {k: c[k] for k in ("result", "unserializable") if k in c}
        return Outcome(Status.OK, cpu_ms=cpu_ms, wall_ms=cpu_ms, peak_mem_kb=r.peak_mem_kb,
                       exit="exit 0", record=record)  # fmt: skip
