"""Where units of work run: in this process (`local`) or as Ray tasks (`ray`).

Both run the same function on the same arguments; a unit's result is committed by the task
itself to the shared output directory, so an executor only has to run the tasks and say when
each one is done.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from filters.contracts import UserError

__all__ = ["Executor", "LocalExecutor", "RayExecutor", "make_executor", "EXECUTORS"]

EXECUTORS = ("local", "ray")


class Executor:
    """Runs `fn(*args)` for each argument tuple; yields each task's result as it finishes."""

    name = "executor"
    #: True when tasks run in this process (stage objects need not travel).
    local = True

    def map(self, fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        raise NotImplementedError

    def close(self) -> None:
        pass


class LocalExecutor(Executor):
    """One task after the other in this process; parallelism lives inside stages (sandbox workers)."""

    name = "local"

    def map(self, fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        for job in jobs:
            yield fn(*job)


class RayExecutor(Executor):
    """Each unit is a Ray task (one CPU each) on the cluster at RAY_ADDRESS, or a local Ray instance.

    The output directory must be on storage every node sees (NFS, a shared volume), since tasks
    write their units there.
    """

    name = "ray"
    local = False

    def __init__(self, address: str | None = None, num_cpus: int | None = None):
        try:
            import ray
        except ImportError:
            raise UserError("--executor ray needs Ray: pip install 'codemix[ray]'") from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            address = address or os.environ.get("RAY_ADDRESS")
            kwargs: dict[str, Any] = {"ignore_reinit_error": True, "include_dashboard": False, "log_to_driver": False}
            if address:
                kwargs["address"] = address
            else:
                kwargs["num_cpus"] = num_cpus
            ray.init(**kwargs)
            self._started = True

    def map(self, fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        ray = self._ray
        task = ray.remote(num_cpus=1, max_retries=2)(fn)
        pending = [task.remote(*job) for job in jobs]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            yield ray.get(ready)[0]  # re-raises a task's error here

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False


def make_executor(name: str, workers: int | None = None) -> Executor:
    if name == "local":
        return LocalExecutor()
    if name == "ray":
        return RayExecutor(num_cpus=workers)
    raise UserError(f"unknown executor {name!r}; choose one of: {', '.join(EXECUTORS)}")
