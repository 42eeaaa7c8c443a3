"""The lifecycle every stage that runs programs shares (verify, amplify): its settings as one object,
a sandbox started on first use (or one the caller passes and keeps), a sibling sandbox with the
next hash seed for reruns, and `close()` stopping what the stage started. A stage crosses process
boundaries (a Ray executor pickles it) without its sandboxes: the copy starts its own."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from filters.sandbox import RunResult, Sandbox
from filters.settings import MUTANT_BATCH_FLOOR_S, MUTANT_TIME_FLOOR_S
from filters.stage import Stage
from filters.tools.threads import thread_map

__all__ = ["SandboxedStage", "ProblemCost", "TooSlow", "Job"]

#: A sandbox job: (problem, code, `Sandbox.run` options)
Job = tuple[dict[str, Any], str, dict[str, Any]]


class TooSlow(Exception):
    """A problem's runs in a stage took more CPU than the stage's `cpu_budget_s`."""


class ProblemCost:
    """The CPU one problem's runs have taken in one stage (ms, as the sandbox measures each run),
    against the stage's budget for a problem (`cpu_budget_s`; None: no budget). Thread-safe: a
    problem's runs end on several threads."""

    #: why `cpu_s` is a measured column of every stage that keeps a budget
    MEASURED_REASON = (
        "in a too_slow row's reject_detail: the CPU its runs took, measured (whether a "
        "problem crosses cpu_budget_s is a measurement too)"
    )

    def __init__(self, budget_s: float | None) -> None:
        self.budget_ms = None if budget_s is None else 1000.0 * budget_s
        self.ms = 0.0
        self._lock = threading.Lock()

    def add(self, ms: float) -> None:
        with self._lock:
            self.ms += ms

    @property
    def over(self) -> bool:
        """Whether the problem has taken more than its budget."""
        return self.budget_ms is not None and self.ms > self.budget_ms

    def check(self) -> None:
        """TooSlow once the problem is over its budget."""
        if self.over:
            raise TooSlow

    def detail(self, stage: str) -> dict[str, Any]:
        """The `reject_detail` of the problem's `too_slow` rejection: what it cost (`cpu_s`, a
        measured value) and the budget."""
        return {
            "cpu_s": round(self.ms / 1000.0, 1),
            "cpu_budget_s": (self.budget_ms or 0.0) / 1000.0,
            "note": f"its runs in {stage} took more CPU than the budget for a problem "
            f"({stage}.cpu_budget_s); the judgement was stopped there",
        }


class SandboxedStage(Stage):
    """A stage that judges by running programs. Subclasses set `settings_class`; the constructor
    takes that settings object (`VerifyStage(VerifyConfig(min_tests=3))`; None: the defaults), the
    build's `workers` (sandbox processes) and an optional `sandbox` the caller owns."""

    def __init__(
        self,
        settings: Any | None = None,
        *,
        workers: int | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.settings = self.settings_from(settings)
        self.workers = workers
        self._sandbox = sandbox
        self._own_sandbox = sandbox is None
        self._rerun: Sandbox | None = None
        self._lock = threading.Lock()  # a stage may judge problems on threads; one rerun sandbox
        #: closed: a judging still on a thread (an interrupted build's) gets an error, never a
        #: fresh sandbox
        self._closed = False

    def reruns_on_next_hash_seed(self) -> bool:
        """Whether reruns go to a sibling sandbox with the next hash seed (True) or to `sandbox`."""
        return True

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            if self._closed:
                raise RuntimeError(f"the {self.name} stage is closed")
            self._sandbox = Sandbox(self.workers)
        return self._sandbox

    @property
    def rerun_sandbox(self) -> Sandbox:
        """Where a rerun goes: a sibling of `sandbox` with the next hash seed (so a result that
        depends on string hashing shows), or `sandbox` itself when the stage says so."""
        if not self.reruns_on_next_hash_seed():
            return self.sandbox
        with self._lock:
            if self._rerun is None:
                if self._closed:
                    raise RuntimeError(f"the {self.name} stage is closed")
                self._rerun = self.sandbox.with_hash_seed(self.sandbox.hash_seed + 1)
            return self._rerun

    def cost(self) -> ProblemCost:
        """A new count of one problem's CPU in this stage, against its `cpu_budget_s`."""
        return ProblemCost(getattr(self.settings, "cpu_budget_s", None))

    def run_budgeted(
        self,
        sandbox: Sandbox,
        jobs: Sequence[Job],
        costs: Sequence[ProblemCost],
        done: Callable[[int, RunResult | None], None] | None = None,
    ) -> list[RunResult | None]:
        """`sandbox.run_many(jobs)`, each job's CPU counted to its problem's cost (`costs[i]` is
        job i's); a job whose problem is over budget when its turn comes is not run (None), so a
        slow problem stops at its budget plus the runs it had under way. `done(i, result)` is
        called as job i ends (run or not), from the thread that ran it."""
        if not jobs:
            return []

        def one(i: int) -> RunResult | None:
            r = None
            if not costs[i].over:
                problem, code, opts = jobs[i]
                r = sandbox.run(problem, code, **opts)
                costs[i].add(r.cpu_ms)
            if done is not None:
                done(i, r)
            return r

        return thread_map(one, range(len(jobs)), min(sandbox.n_workers, len(jobs)))

    def mutant_limit_s(self, limit: float, reference_ms: float) -> float:
        """A mutant's time limit (s) on tests the slowest passing reference takes `reference_ms`
        CPU ms on (its slowest one): max(`MUTANT_TIME_FLOOR_S`, `time_factor` x that), rounded
        up to 0.1 s, at most the problem's `limit`. Past it the mutant is killed by its timeout."""
        own = math.ceil(self.settings.time_factor * reference_ms / 100.0) / 10.0
        return min(limit, max(MUTANT_TIME_FLOOR_S, own))

    def mutant_batch_s(self, reference_ms: float) -> float:
        """A mutant's call's CPU inside a batch (`Sandbox.run`'s `batch_call_s`): max(the floor,
        `time_factor` x the slowest passing reference's CPU ms on the same tests); the sandbox
        caps it at the mutant's limit."""
        return max(MUTANT_BATCH_FLOOR_S, self.settings.time_factor * reference_ms / 1000.0)

    def environment(self) -> dict[str, Any]:
        """The isolation actually in force (namespaces, uid, limits), for the manifest."""
        return {"isolation": self.sandbox.isolation_report()}

    def close(self) -> None:
        """Stop the sandboxes this stage started (a sandbox passed in is left to its owner); the
        stage judges nothing more."""
        self._closed = True
        if self._rerun is not None:
            self._rerun.close()
            self._rerun = None
        if self._own_sandbox and self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_sandbox=None, _rerun=None, _own_sandbox=True, _closed=False)
        state.pop("on_problem", None)  # a listener in the process that made the copy
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
