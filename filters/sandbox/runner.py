"""`Sandbox`: run untrusted Python or C++ against a problem's tests on a pool of fork-server workers.

The face of the sandbox (run, run_many, outputs, close); its parts are beside it: the workers
(`pool`), judging one program on one of them (`judge`), batches of calls (`batches`), and making a
C++ program's executable (`native`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from filters.compare import DEFAULT_TOLERANCE
from filters.sandbox import cpp
from filters.sandbox.judge import Judge, run_once
from filters.sandbox.limits import (
    DEFAULT_MEMORY_LIMIT_MB,
    DEFAULT_OUTPUT_LIMIT_BYTES,
    DEFAULT_TIME_LIMIT_S,
    Limits,
)
from filters.sandbox.outcome import Status
from filters.sandbox.pool import WorkerPool, default_workers
from filters.sandbox.process import WorkerDied, WorkerProcess
from filters.sandbox.result import Output, RunResult
from filters.tools.threads import thread_map

__all__ = ["Sandbox", "Output", "default_workers"]

#: (problem, code) or (problem, code, run() keyword arguments for this job)
Job = tuple[dict[str, Any], str] | tuple[dict[str, Any], str, dict[str, Any]]
_T = TypeVar("_T")


class Sandbox:
    """A pool of confined fork-server workers; use as a context manager (`close()` kills them).

    `run(problem, code)` judges one program against a canonical problem record; `run_many` judges
    many in parallel. The time limit is CPU time; limits come from the arguments, then the
    problem's `time_limit_s` / `memory_limit_mb`, then the defaults given here. A program is
    Python unless `language="cpp"` says otherwise (C++: stdio problems; compiled once per
    program, confined like any run, under limits of its own: `cpp.COMPILE_LIMITS`).
    """

    #: one run of a program on a worker; every run of every judging goes through it
    _run = staticmethod(run_once)

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
        self._binaries = cpp.BinaryCache()
        try:  # every worker sees the precompiled headers, built when a C++ program first comes
            visible: tuple[str, ...] = (str(cpp.pch_root()),)
        except OSError:
            visible = ()
        self._pool = WorkerPool(self.n_workers, hash_seed, visible)

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
        self._pool.close()

    @property
    def closed(self) -> bool:
        return self._pool.closed

    def disown(self) -> None:
        """In a forked child: this pool belongs to the parent; never stop its workers from here."""
        self._pool.disown()

    @property
    def _all(self) -> list[WorkerProcess]:
        """Every worker (a dead one's slot holds its replacement)."""
        return self._pool.workers

    def isolation_report(self) -> dict[str, Any]:
        """Which isolation is actually in force (for the manifest)."""
        iso = self._pool.isolation
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

    # ---- judging on a worker -----------------------------------------------------------------
    def _on_a_worker(
        self, judging: Callable[[Judge], _T], died: Callable[[WorkerDied], _T]
    ) -> _T:
        """`judging` on a worker lent for it; `died(e)` when the worker died under it (a harness
        fault: the worker is replaced, the caller may try again)."""
        w = self._pool.acquire()
        try:
            return judging(Judge(w, self._run, tolerance=self.tolerance,
                                 compile_limits=self.compile_limits, binaries=self._binaries))  # fmt: skip
        except WorkerDied as e:
            w = self._pool.replace(w)
            return died(e)
        except BaseException:
            w.kill()  # interrupted mid-exchange (Ctrl-C): its answer would come out of step
            raise
        finally:
            self._pool.release(w)

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
        confirm_timeouts: bool = False,
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
        `confirm_timeouts`: a test that runs out of time runs once more, in a child of its own,
        and counts as TLE only if it runs out of time again (a build's decisions must not hang on
        a moment of the machine's load; a program that loops pays its limit twice).
        """
        lang = self._language(problem, language)
        limits = self.limits_for(problem, time_limit_s, memory_limit_mb)
        result = RunResult("SE", language=lang)
        for attempt in range(1, self.retries + 2):
            result = self._on_a_worker(
                lambda j: j.judge(problem, code, limits, tests, stop_on_failure, lang, batch,
                                  batch_call_s, defer_slow, confirm_timeouts),
                lambda e: RunResult("SE", error=str(e), time_limit_s=limits.time_s),
            )  # fmt: skip
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

        # (an interrupt returns at once: jobs not started are dropped, running ones end with
        # the workers, which `close()` stops)
        return thread_map(one, jobs, min(self.n_workers, len(jobs)))

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
            out = self._on_a_worker(
                lambda j: j.outputs(problem, code, list(inputs), limits, kind, lang),
                lambda e: [Output(Status.SE)] * len(inputs),
            )
            if all(o.status != Status.SE for o in out):
                break
        return out
