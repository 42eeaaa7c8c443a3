"""Where units of work run: in this process (`local`) or as Ray tasks (`ray`).

Both run the same function on the same arguments; a unit's result is committed by the task
itself to the output directory (a shared disk or object storage, `curation.storage`), so an
executor only has to run the tasks and say when each one is done.

The Ray executor adds what a cluster needs around that:

- **Failures**: a task that raises, or whose worker or node dies, is run again up to `retries`
  more times, each failure said on the driver (the unit and the error); past the limit the build
  stops with a `UserError` naming the unit and the last error.
- **A time limit per task** (`task_timeout_s`): a task still running after it is cancelled and
  counts as a failure. Tasks are submitted no faster than the cluster has CPUs, so a task's clock
  starts close to when it starts running.
- **Wide tasks**: a job may hold several CPUs (`cpus`, at most `widest()`: the largest node's),
  for a slow problem whose sandbox then runs that many workers; it is submitted once that many
  CPUs are free, and a retry holds no more than the largest node still alive has.
- **Progress across nodes**: `rows_reporter` gives tasks a callable that counts judged rows in a
  small actor; the driver reads it while it waits, so a stage's progress moves chunk by chunk as in
  a local build.
- **Shared state sent once**: `share` puts an object (a decided global stage, a stage factory
  holding decontam's references) in Ray's object store once; every task gets the reference.
- **Task logs on the driver** (`log_to_driver`).
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from filters.contracts import UserError

__all__ = ["Executor", "LocalExecutor", "RayExecutor", "make_executor", "EXECUTORS", "TaskFailed"]

EXECUTORS = ("local", "ray")


class TaskFailed(UserError):
    """A unit of work failed on every try."""


class Executor:
    """Runs `fn(*args)` for each argument tuple; yields each task's result as it finishes. The
    caller may append jobs (and their labels) to `jobs` while it iterates: they run too. `cpus[i]`,
    where given, is how many CPUs job i holds (1 for a job past its end)."""

    name = "executor"
    #: True when tasks run in this process (stage objects need not travel).
    local = True

    def map(
        self,
        fn: Callable[..., Any],
        jobs: Sequence[tuple[Any, ...]],
        labels: Sequence[str] | None = None,
        cpus: Sequence[int] | None = None,
    ) -> Iterator[Any]:
        raise NotImplementedError

    def slots(self) -> int:
        """How many tasks run at once."""
        return 1

    def widest(self) -> int:
        """The most CPUs one task can hold (the CPUs of the largest node)."""
        return 1

    def share(self, obj: Any) -> Any:
        """`obj` as tasks should receive it (the object itself, or a reference the engine resolves)."""
        return obj

    def warm(self, modules: Sequence[str]) -> None:
        """Have the workers import `modules` (what their tasks will run) before the first task
        comes; nothing where tasks run in this process."""

    def rows_reporter(self, on_rows: Callable[[int], None]) -> Callable[[int], None]:
        """A callable tasks call with rows judged; `on_rows` hears of them on the driver."""
        return on_rows

    def close(self) -> None:
        pass


class LocalExecutor(Executor):
    """One task after the other in this process; parallelism lives inside stages (sandbox workers)."""

    name = "local"

    def map(
        self,
        fn: Callable[..., Any],
        jobs: Sequence[tuple[Any, ...]],
        labels: Sequence[str] | None = None,
        cpus: Sequence[int] | None = None,
    ) -> Iterator[Any]:
        for job in jobs:
            yield fn(*job)


class _RowsToActor:
    """What a Ray task calls with the rows it judged: adds them to one counter of the driver's
    counter actor."""

    def __init__(self, actor: Any, key: int) -> None:
        self.actor = actor
        self.key = key

    def __call__(self, n: int) -> None:
        self.actor.add.remote(self.key, n)


def _counter_class(ray: Any) -> Any:
    @ray.remote(num_cpus=0)
    class RowCounter:
        def __init__(self) -> None:
            self.rows: dict[int, int] = {}

        def add(self, key: int, n: int) -> None:
            self.rows[key] = self.rows.get(key, 0) + n

        def take(self) -> dict[int, int]:
            rows, self.rows = self.rows, {}
            return rows

    return RowCounter


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class RayExecutor(Executor):
    """Units of work as Ray tasks (one CPU each, more for a slow problem) on the cluster at
    RAY_ADDRESS, or a local Ray instance.

    The output directory must be one every node reaches: a shared disk (NFS, a shared volume) or
    object storage (`s3://...`), since tasks write their units there.
    """

    name = "ray"
    local = False

    def __init__(
        self,
        address: str | None = None,
        num_cpus: int | None = None,
        retries: int = 2,
        task_timeout_s: float | None = None,
        say: Callable[[str], None] = _say,
    ):
        try:
            import ray
        except ImportError:
            raise UserError("--executor ray needs Ray: pip install 'codemix[ray]'") from None
        if retries < 0:
            raise UserError("retries must be 0 or more")
        if task_timeout_s is not None and task_timeout_s <= 0:
            raise UserError("--task-timeout must be a positive number of seconds")
        self._ray = ray
        self._started = False
        self.retries = retries
        self.task_timeout_s = task_timeout_s
        self.say = say
        # one counter actor for the whole build (an actor is a process of its own): a counter in
        # it per stage that reports, key -> what hears of its rows on the driver
        self._actor: Any = None
        self._counters: dict[int, Callable[[int], None]] = {}
        self._next_key = 0
        self._counter_lost = False
        if not ray.is_initialized():
            address = address or os.environ.get("RAY_ADDRESS")
            kwargs: dict[str, Any] = {
                "ignore_reinit_error": True,
                "include_dashboard": False,
                "log_to_driver": True,
            }
            if address:
                kwargs["address"] = address
            else:
                kwargs["num_cpus"] = num_cpus
            ray.init(**kwargs)
            self._started = True
        self._warming: list[Any] = []  # `warm`'s tasks

    def share(self, obj: Any) -> Any:
        return self._ray.put(obj)

    def warm(self, modules: Sequence[str]) -> None:
        # each worker imports them now, while the driver reads the input (not waited for)
        self._warming += [self._ray.remote(num_cpus=1)(_warm_worker).remote(tuple(modules))
                          for _ in range(self._slots())]  # fmt: skip

    def rows_reporter(self, on_rows: Callable[[int], None]) -> Callable[[int], None]:
        if self._actor is None:  # on the driver's node: a lost worker node does not take it along
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            here = NodeAffinitySchedulingStrategy(
                self._ray.get_runtime_context().get_node_id(), soft=True
            )
            # restarted elsewhere if its node goes all the same (the counts it held are lost)
            self._actor = (
                _counter_class(self._ray)
                .options(scheduling_strategy=here, max_restarts=-1)
                .remote()
            )
        key, self._next_key = self._next_key, self._next_key + 1
        self._counters[key] = on_rows
        return _RowsToActor(self._actor, key)

    def _poll(self) -> None:
        if self._actor is None or not self._counters:
            return
        from ray.exceptions import RayError

        try:
            counts = self._ray.get(self._actor.take.remote())
        except RayError as e:  # the counter's node is gone: Ray restarts it; the build goes on
            if not self._counter_lost:
                self.say(
                    f"warning: progress counts held on a lost node are lost ({_error_line(e)}); the build goes on"
                )
                self._counter_lost = True
            return
        for key, n in counts.items():
            if n and key in self._counters:
                self._counters[key](n)

    def _drop_counters(self) -> None:
        self._poll()
        self._counters = {}

    def slots(self) -> int:
        """The cluster's CPUs (how many tasks run at once)."""
        return self._slots()

    def _slots(self) -> int:
        try:
            return max(1, int(self._ray.cluster_resources().get("CPU", 1)))
        except Exception:  # a cluster that cannot say: one task per unit of work at a time
            return 1

    def widest(self) -> int:
        try:
            return max(1, max(int(n["Resources"].get("CPU", 1)) for n in self._ray.nodes() if n["Alive"]))
        except Exception:  # a cluster that cannot say: one CPU a task
            return 1

    def map(
        self,
        fn: Callable[..., Any],
        jobs: Sequence[tuple[Any, ...]],
        labels: Sequence[str] | None = None,
        cpus: Sequence[int] | None = None,
    ) -> Iterator[Any]:
        ray = self._ray
        from ray.exceptions import RayError

        # Ray's own retries are off: failures come back here, to be said and counted.
        task = ray.remote(num_cpus=1, max_retries=0)(fn)
        waiting = list(range(len(jobs)))[::-1]  # popped from the end: in order
        known = len(jobs)
        tries = [0] * len(jobs)
        running: dict[Any, tuple[int, float]] = {}  # ref -> (job, submitted at)
        slots = self._slots()

        def name(i: int) -> str:
            return labels[i] if labels is not None and i < len(labels) else f"task {i}"

        def cpus_of(i: int) -> int:
            return cpus[i] if cpus is not None and i < len(cpus) else 1

        try:
            while waiting or running or len(jobs) > known:
                # jobs the caller added while iterating go first (they finish what is under way)
                waiting.extend(range(known, len(jobs)))
                tries.extend([0] * (len(jobs) - known))
                known = len(jobs)
                # submitted while the cluster has CPUs for them, in order (a wide job waits its turn)
                while waiting and (not running or sum(cpus_of(j) for j, _ in running.values())
                                   + cpus_of(waiting[-1]) <= slots):  # fmt: skip
                    i = waiting.pop()
                    tries[i] += 1
                    c = cpus_of(i) if tries[i] == 1 else min(cpus_of(i), self.widest())  # its node may be gone
                    ref = (task.options(num_cpus=c) if c != 1 else task).remote(*jobs[i])
                    running[ref] = (i, time.monotonic())
                ready, _ = ray.wait(list(running), num_returns=1, timeout=1.0)
                self._poll()
                now = time.monotonic()
                failed: list[tuple[int, str]] = []
                for ref in ready:
                    i, _ = running.pop(ref)
                    try:
                        result = ray.get(ref)
                    except RayError as e:
                        failed.append((i, _error_line(e)))
                        continue
                    yield result
                failed += self._cancel_overdue(running, now)
                for i, error in failed:
                    self._retry_or_stop(name(i), tries[i], error)
                    waiting.append(i)
        finally:
            for ref in running:
                ray.cancel(ref, force=True)
            self._drop_counters()

    def _cancel_overdue(self, running: dict[Any, tuple[int, float]], now: float) -> list[tuple[int, str]]:
        """Cancel the tasks of `running` (ref -> (job, submitted at)) past `task_timeout_s`, and
        say which jobs they were."""
        if self.task_timeout_s is None:
            return []
        overdue = [(ref, i) for ref, (i, t0) in running.items() if now - t0 > self.task_timeout_s]
        for ref, _ in overdue:
            del running[ref]
            self._ray.cancel(ref, force=True)
        return [(i, f"timed out after {self.task_timeout_s:g} s (--task-timeout)") for _, i in overdue]

    def _retry_or_stop(self, name: str, tries: int, error: str) -> None:
        """A task failed on its `tries`-th try: say so and let it run again, or, past `retries`,
        stop the build naming the task and the error."""
        if tries > self.retries:
            raise TaskFailed(f"{name} failed {tries} times; last error: {error}")
        self.say(f"warning: {name} failed (try {tries} of {self.retries + 1}): {error}; retrying")

    def close(self) -> None:
        if self._actor is not None:
            try:
                self._ray.kill(self._actor)
            except Exception:  # gone with its node already
                pass
            self._actor = None
        if self._started:
            self._ray.shutdown()
            self._started = False


def _warm_worker(modules: tuple[str, ...]) -> None:
    for name in modules:
        importlib.import_module(name)


def _error_line(e: Exception) -> str:
    """A task's error in one line: the exception the task raised, not Ray's traceback around it."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {cause}"
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[-1] if text else ''}"


def make_executor(
    name: str,
    workers: int | None = None,
    retries: int = 2,
    task_timeout_s: float | None = None,
) -> Executor:
    """The executor `name` (`EXECUTORS`)."""
    if name == "local":
        return LocalExecutor()
    if name == "ray":
        return RayExecutor(num_cpus=workers, retries=retries, task_timeout_s=task_timeout_s)
    raise UserError(f"unknown executor {name!r}; choose one of: {', '.join(EXECUTORS)}")
