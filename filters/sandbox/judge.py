"""One program judged on one worker: its tests run one child each (or in batches of calls), each
outcome judged here, outside the program (by the checker, in a child of its own, where the
problem has one), and summed up in a `RunResult`; or its outputs on given inputs, unjudged.

Every run goes through `run_once` (the sandbox's `_run`): the input written to the worker's I/O
directory, the worker's answer, the outcome read back from the files the run left.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from filters.compare import Comparison, compare_call, explain_stdio
from filters.sandbox import checkers, cpp
from filters.sandbox.any_order import holds_in_any_order
from filters.sandbox.assert_eval import judge_call
from filters.sandbox.asserts import assert_result, instrumented
from filters.sandbox.batches import Batches
from filters.sandbox.limits import Limits
from filters.sandbox.native import compile_native, native_io_mb, ready_checker
from filters.sandbox.outcome import Outcome, Status, outcome
from filters.sandbox.process import WorkerDied, WorkerProcess
from filters.sandbox.result import Output, RunResult, TestResult, not_run, summary, truncate
from filters.sandbox.worker.wire import Files, Op, Run, RunLimits, answer_timeout

__all__ = ["Judge", "run_once"]

_COMPILE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)
#: one run of a program on a worker (`run_once`, or the sandbox's `_run` that stands for it)
RunOnce = Callable[[WorkerProcess, Run, str, float], Outcome]


def run_once(w: WorkerProcess, run: Run, test_input: str, timeout: float) -> Outcome:
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


def _io_mb(output_bytes: int, program_bytes: int, input_bytes: int) -> int:
    """MB of I/O space a program's runs need: the program (and its compiled cache), the longest
    input (or check), and stdout and stderr at the limit."""
    return (2 * output_bytes + 4 * program_bytes + 4 * input_bytes) // (1 << 20) + 2


def _longest(tests: list[dict[str, str]], checker: str | None) -> int:
    """The longest test input (with its expected output, which a checker reads too)."""
    return max((len(t["input"]) + (len(t["output"]) if checker else 0) for t in tests), default=0)


def _run_of(
    problem: dict[str, Any],
    kind: str,
    limits: Limits,
    io_mb: int,
    call_check: bool = False,
    language: str = "python",
) -> Run:
    """How a program of `problem` runs on each test (but its first run, which compiles it)."""
    return Run(
        limits=RunLimits.of(limits),
        io_mb=io_mb,
        kind=kind,
        entry=problem.get("entry_point"),
        call_check=call_check,
        typed=kind == "call" and bool(problem.get("typed_calls")),
        first=False,
        language=language,
    )


class _Suite(NamedTuple):
    """What judging each test of a stdio or call run needs."""

    run: Run  # how the program runs (its kind, typed calls)
    checker: str | None
    mode: Comparison
    timeout: float  # how long to wait for a run's answer (`wire.answer_timeout`)


class _Tally:
    """A run's test verdicts as they come, and its first failure."""

    def __init__(self) -> None:
        self.results: list[TestResult] = []
        self.first: dict[str, Any] | None = None
        self.verdict = "AC"

    def add(
        self, i: int, t: dict[str, str], r: Outcome, v: str, actual: str | None, reason: str | None
    ) -> bool:
        """Record test i's verdict `v`; whether it is the run's first failure."""
        self.results.append(TestResult(i, v, r.cpu_ms, r.wall_ms, r.peak_mem_kb))
        if v == "AC" or self.first is not None:
            return False
        self.verdict = v
        self.first = {
            "test": i,
            "verdict": v,
            "input": truncate(t["input"]),
            "expected": truncate(t["output"]),
            "actual": truncate(actual),
            "reason": reason,
            "exit": r.exit,
            "stderr": truncate(r.stderr, 1000),
        }
        return True


class Judge:
    """How one program is judged on the worker `w`, lent to it for the run. `run_once` runs the
    program there once; `tolerance` is the float tolerance of comparisons; a C++ program is
    compiled under `compile_limits`, or its binary taken from `binaries`."""

    def __init__(
        self,
        w: WorkerProcess,
        run_once: RunOnce,
        *,
        tolerance: float,
        compile_limits: Limits,
        binaries: cpp.BinaryCache,
    ) -> None:
        self.w = w
        self.run_once = run_once
        self.tolerance = tolerance
        self.compile_limits = compile_limits
        self.binaries = binaries
        #: compiled C++ checkers, on disk (`checkers.CheckerCache`)
        self.checker_cache = checkers.CheckerCache()
        #: `judge(confirm_timeouts=True)`: a run that runs out of time runs once more
        self.confirm_timeouts = False

    def once(self, run: Run, test_input: str, timeout: float) -> Outcome:
        """One run of the program; with `confirm_timeouts`, one that ran out of time (not a batch
        of calls, whose tests are each confirmed alone, nor a checker) runs once more, in a child
        of its own, and that run's outcome counts: a timeout is a program's only when it repeats,
        not a moment of the machine's load (a fork's page faults under contention once took a
        20-ms program past 0.3 s of CPU)."""
        r = self.run_once(self.w, run, test_input, timeout)
        if self.confirm_timeouts and r.status == Status.TLE and not run.batch and not run.check:
            r = self.run_once(self.w, run, test_input, timeout)
        return r

    def _compile(self, code: bytes, io_mb: int) -> tuple[Outcome | None, float, int]:
        return compile_native(self.w, code, io_mb, self.compile_limits, self.binaries)

    # ---- outputs, unjudged ----------------------------------------------------------------------
    def outputs(
        self,
        problem: dict[str, Any],
        code: str,
        inputs: list[str],
        limits: Limits,
        kind: str,
        lang: str = "python",
    ) -> list[Output]:
        """What the program printed or returned on each input (`Sandbox.outputs`)."""
        if not inputs:
            return []
        code_bytes = code.encode("utf-8", "surrogatepass")
        io_mb = _io_mb(limits.output_bytes, len(code_bytes), max(map(len, inputs)))
        native = lang != "python"
        if native:
            io_mb = native_io_mb(io_mb, self.compile_limits.output_bytes)
            failed, _, static = self._compile(code_bytes, io_mb)
            if failed is not None:
                return [Output(failed.status)] * len(inputs)
            if static > limits.memory_mb * (1 << 20):
                return [Output(Status.MLE)] * len(inputs)
        else:
            self.w.files().write(Files.CODE, code_bytes)
        run = _run_of(problem, kind, limits, io_mb, language=lang)
        timeout = answer_timeout(limits.wall_s)
        out: list[Output] = []
        for i, text in enumerate(inputs):
            first = i == 0 and not native  # (a native program's binary is made: keep it)
            this = run._replace(first=True, cache=len(inputs) > 1) if first else run
            r = self.once(this, text, timeout)
            if r.status in (Status.CE, Status.SE):  # did not compile (first run), harness fault
                return [Output(r.status)] * len(inputs)
            out.append(_output(r, kind))
        return out

    # ---- judging ----------------------------------------------------------------------------
    def judge(
        self,
        problem: dict[str, Any],
        code: str,
        limits: Limits,
        tests: Sequence[dict[str, str]] | None,
        stop: bool,
        lang: str = "python",
        batch: bool = False,
        batch_call_s: float | None = None,
        defer_slow: bool = False,
        confirm_timeouts: bool = False,
    ) -> RunResult:
        """The program's verdict on `tests` (None: the problem's own; `Sandbox.run`)."""
        self.confirm_timeouts = confirm_timeouts
        kind = problem.get("test_type") or "stdio"
        tests = list(tests if tests is not None else (problem.get("tests") or []))
        if tests and kind != "assert" and _native_checker(problem):
            # compiled (or taken from the cache) before the program, whose files it would
            # overwrite, and written once for all of the program's checks
            failed = ready_checker(self.w, problem["checker"], _checker_io_mb(limits, tests),
                                   self.checker_cache)  # fmt: skip
            if failed is not None:
                return not_run(failed, len(tests), limits)
        if lang != "python":
            return self._judge_native(problem, code, limits, tests, stop, lang)
        if kind == "assert":
            return self._judge_assert(problem, code, limits, tests)
        if not tests:  # nothing to run: it only has to compile
            try:
                compile(code, "solution.py", "exec", dont_inherit=True)
            except _COMPILE_ERRORS as e:
                return not_run(Outcome(Status.CE, error=f"{type(e).__name__}: {e}"), 0, limits)
            return summary("AC", [], 0, None, limits)
        run = self._prepare(problem, code, limits, tests)
        return self._judge_stdio(problem, run, tests, limits, stop, batch, batch_call_s,
                                 defer_slow)  # fmt: skip

    def _prepare(
        self,
        problem: dict[str, Any],
        code: str,
        limits: Limits,
        tests: list[dict[str, str]],
        suite: str | None = None,
        call_check: bool = False,
    ) -> Run:
        """A Python program (and an assert problem's instrumented `suite`) written to the worker's
        I/O directory, and how it runs; its first run compiles it (the worker drops the last)."""
        kind = problem.get("test_type") or "stdio"
        checker = problem.get("checker")
        io = self.w.files()
        code_bytes = code.encode("utf-8", "surrogatepass")
        suite_bytes = (suite or "").encode("utf-8", "surrogatepass")
        longest = _longest(tests, checker)
        io_mb = _io_mb(limits.output_bytes, len(code_bytes) + len(suite_bytes), longest)
        if _native_checker(problem):
            io_mb = max(io_mb, _checker_io_mb(limits, tests))
        io.write(Files.CODE, code_bytes)
        if kind == "assert":
            io.write(Files.SUITE, suite_bytes)
        return _run_of(problem, kind, limits, io_mb, call_check=call_check)

    def _judge_stdio(
        self,
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
        `batch`, call tests in batches, a test that fails in one rerun alone (`Sandbox.run`)."""
        checker = problem.get("checker")
        mode = Comparison.parse(problem.get("comparison"))
        suite = _Suite(run, checker, mode, answer_timeout(limits.wall_s))
        total = len(test_list)
        tally = _Tally()
        batched = (
            Batches(self.once, run, test_list, limits, stop, batch_call_s)
            if batch and run.kind == "call" and not checker
            else None
        )
        deferred: list[int] = []  # `defer_slow`: a test past the batch's budget, judged last
        defer = defer_slow and stop and batched is not None
        for i, t in enumerate(test_list):
            if batched is not None and i in batched:
                r = self._from_batch(batched, i, t, suite, defer and not deferred, limits)
                if r is None:
                    deferred.append(i)  # past the budget: judged last, if nothing fails before
                    continue
            else:
                # a Python program's first run compiles it, and keeps it compiled when more follow
                first = i == 0 and run.language == "python"
                this = run._replace(first=True, cache=len(test_list) > 1) if first else run
                r = self.once(this, t["input"], suite.timeout)
            if r.status in (Status.CE, Status.SE):  # did not compile (first run), harness fault
                return not_run(r, total, limits)
            if self._judged(tally, suite, i, t, r) and stop:
                break
        else:
            for i in deferred:  # nothing failed after it: alone, under the full limit
                r = self.once(run, test_list[i]["input"], suite.timeout)
                if r.status in (Status.CE, Status.SE):
                    return not_run(r, total, limits)
                self._judged(tally, suite, i, test_list[i], r)
            tally.results.sort(key=lambda x: x.index)
        return summary(tally.verdict, tally.results, total, tally.first, limits)

    def _from_batch(
        self,
        batched: Batches,
        i: int,
        t: dict[str, str],
        suite: _Suite,
        may_defer: bool,
        limits: Limits,
    ) -> Outcome | None:
        """Test i's outcome in its batch, confirmed alone where a batch cannot tell; None when
        it ran past the batch's budget and is to be judged last (`may_defer`)."""
        r = batched[i]
        v = self._verdict(r, t, suite)[0]
        if v == "WA" and not batched.fresh(i):
            # what the calls of a batch share may fail a test that passes alone: a wrong
            # answer is asked again of a fresh child, in a batch that starts there
            batched.restart(i)
            r = batched[i] if i in batched else r
            v = self._verdict(r, t, suite)[0]
        if (may_defer and v == Status.TLE and r.exit == "batch"
                and batched.call_s < limits.time_s):  # fmt: skip
            return None
        if v not in ("AC", "WA") or (v == "WA" and not batched.fresh(i)):
            # a crash or a limit (the call's budget in a batch, the memory the batch
            # holds, the depth of its stack) is confirmed in a child of its own (the
            # batch compiled and cached the program), under the full limit
            r = self.once(suite.run, t["input"], suite.timeout)
        return r

    def _judged(self, tally: _Tally, suite: _Suite, i: int, t: dict[str, str], r: Outcome) -> bool:
        """Judge test i's outcome and record it; whether it is the run's first failure."""
        v, actual, reason = self._verdict(r, t, suite)
        # "check" (a checker and an output): in a run of its own, where the expected answer
        # never enters the program's
        if v == "check" and suite.checker and actual is not None:
            if suite.run.kind == "stdio" and r.stdout is not None:
                v, reason = self._check(suite, suite.checker, t, actual, r.stdout)
            else:
                v, reason = self._check(suite, suite.checker, t, actual)
        return tally.add(i, t, r, v, actual, reason)

    def _judge_native(
        self,
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
        longest = _longest(test_list, problem.get("checker"))
        io_mb = native_io_mb(
            _io_mb(limits.output_bytes, len(code_bytes), longest), self.compile_limits.output_bytes
        )
        if _native_checker(problem):
            io_mb = max(io_mb, _checker_io_mb(limits, test_list))
        failed, compile_ms, static = self._compile(code_bytes, io_mb)
        if failed is None and static > limits.memory_mb * (1 << 20):
            failed = Outcome(
                Status.MLE,
                error=f"its static data ({static >> 20} MB) exceeds the memory limit",
            )
        if failed is not None:
            out = not_run(failed, len(test_list), limits)
        else:
            run = Run(
                limits=RunLimits.of(limits),
                io_mb=io_mb,
                kind="stdio",
                first=False,  # (its binary is in place: a first run would remove it)
                language=lang,
            )
            out = self._judge_stdio(problem, run, test_list, limits, stop)
        out.compile_ms = compile_ms
        return out

    def _verdict(
        self, r: Outcome, t: dict[str, str], suite: _Suite
    ) -> tuple[str, str | None, str | None]:
        """(verdict, actual output, reason) of one test's run; "check" when a checker decides."""
        kind, typed, checker, mode = suite.run.kind, suite.run.typed, suite.checker, suite.mode
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
        self, suite: _Suite, checker: str, t: dict[str, str], actual: str, raw: bytes | None = None
    ) -> tuple[str, str | None]:
        """The checker's verdict on one output, in a fresh child of its own (a program's children
        never hold an expected answer). A C++ checker reads the output as printed (`raw`)."""
        if checkers.checker_kind(checker) in ("testlib", "standard"):
            return self._native_check(suite, t, raw if raw is not None else actual.encode())
        task = {"checker": checker, "input": t["input"], "expected": t["output"], "actual": actual}
        limits = suite.run.limits._replace(time_s=10.0, wall_s=31.0, rlimit_cpu_s=11)
        check = Run(limits=limits, io_mb=suite.run.io_mb, check=True, first=False)
        try:
            self.w.files().write(Files.CHECK, json.dumps(task).encode())
        except OSError as e:
            raise WorkerDied(f"cannot write to the worker's I/O directory: {e}") from None
        r = self.once(check, "", answer_timeout(limits.wall_s))
        res = r.record or {}
        if r.status == Status.OK and res.get("ok") is True:
            return "AC", None
        if r.status == Status.OK:
            return "WA", "checker rejected the output"
        if r.status == Status.RE and res.get("exc"):
            # `check()` raised: a Python checker cannot say FAIL, and one that chokes on a
            # malformed output rejects it
            return "WA", f"checker failed ({r.status}): {res.get('error') or r.stderr}"[:500]
        # the checker's own process ran out of time or memory, or died: not the program's fault
        return "SE", f"the checker failed ({r.status}, {r.exit}): {r.error or r.stderr}"[:500]

    def _native_check(self, suite: _Suite, t: dict[str, str], output: bytes) -> tuple[str, str | None]:
        """A testlib checker's verdict (`checker input output answer`, by its exit status), run
        like the program: confined, as the run's user, under the program's memory and output
        limits and `checkers.check_time_s` of CPU. Its crash, its timeout or its FAIL is SE
        (`checkers.verdict_of`)."""
        time_s = checkers.check_time_s(suite.run.limits.time_s)
        limits = suite.run.limits._replace(
            time_s=time_s, wall_s=3 * time_s + 1, rlimit_cpu_s=math.ceil(time_s) + 1
        )
        check = Run(limits=limits, io_mb=suite.run.io_mb, check=True, first=False, language="cpp")
        io = self.w.files()
        try:
            io.write(Files.CHECK_INPUT, t["input"].encode("utf-8", "surrogateescape"))
            io.write(Files.CHECK_OUTPUT, output)
            io.write(Files.CHECK_ANSWER, t["output"].encode("utf-8", "surrogateescape"))
        except UnicodeEncodeError as e:
            return "SE", f"the test cannot be written for the checker: {e}"
        except OSError as e:
            raise WorkerDied(f"cannot write to the worker's I/O directory: {e}") from None
        r = self.once(check, "", answer_timeout(limits.wall_s))
        verdict, name = checkers.verdict_of(r.status, r.exit)
        said = (r.stderr or r.error or "").strip()[:400]
        if verdict == "AC":
            return "AC", None
        if verdict == "WA":
            return "WA", f"checker: {name}: {said}"[:500]
        return "SE", f"the checker failed ({name or r.status}, {r.exit}): {said}"[:500]

    def _judge_assert(
        self, problem: dict[str, Any], code: str, limits: Limits, tests: list[dict[str, str]]
    ) -> RunResult:
        """An assert suite, instrumented, in one run with the program: each assertion reports."""
        try:
            test_code, texts, call_check = instrumented(problem.get("test_code") or "")
        except (SyntaxError, ValueError, RecursionError) as e:
            return RunResult(
                "SE", error=f"test code does not parse: {e}", time_limit_s=limits.time_s
            )
        run = self._prepare(problem, code, limits, tests, test_code, call_check)
        r = self.once(run._replace(first=True), "", answer_timeout(limits.wall_s))
        if r.status in (Status.CE, Status.SE):  # did not compile, harness fault
            return not_run(r, max(1, len(texts)), limits)
        return assert_result(r, texts, limits)


def _native_checker(problem: dict[str, Any]) -> bool:
    """Whether the problem's checker is C++ (testlib source or a standard checker's name)."""
    return checkers.checker_kind(problem.get("checker")) in ("testlib", "standard")


def _checker_io_mb(limits: Limits, tests: list[dict[str, str]]) -> int:
    """I/O space for a C++ checker: its compile (executable, messages), and a check's three
    files (the input, the output at the limit, the answer)."""
    longest = _longest(tests, "yes")
    room = _io_mb(limits.output_bytes, 0, longest)
    return native_io_mb(room, checkers.CHECKER_COMPILE_LIMITS.output_bytes)


def _output(r: Outcome, kind: str) -> Output:
    """A run's output, unjudged: what it printed (stdio) or returned (call)."""
    if r.status != Status.OK:
        return Output(r.status, None, r.cpu_ms)
    if kind == "stdio":
        value: Any = (r.stdout or b"").decode("utf-8", "replace")
    else:
        value = (r.record or {}).get("result")
    ok = isinstance(value, str)  # the program can write any record there
    return Output(Status.OK if ok else Status.RE, value if ok else None, r.cpu_ms)
