"""One lazily started `Sandbox` per process, shared by every reward call in it and closed at exit.

Trainers call reward functions per sample, from several threads (verl's reward loop) or several
processes (reward workers, data-parallel ranks); each process gets its own pool, created on first
use. A forked child never reuses its parent's pool, nor stops it at exit: it starts its own.
`CODEMIX_REWARD_WORKERS` sets the pool size (default: the CPUs this process may use).

`RewardSandbox` guards against a sandbox fault seen while this was written (since fixed in
filters/sandbox/worker.py): workers set PR_SET_PDEATHSIG, which fires when the *thread* that
started them exits, and `Sandbox` starts and replaces workers from short-lived threads, so they
died at once and every pool's first runs burned their retries on SE. Here replacements are started
from one long-lived thread, and initial workers found dead are replaced.
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from filters.sandbox import Sandbox, default_workers
from filters.sandbox.process import WorkerProcess

__all__ = ["RewardSandbox", "shared_sandbox", "close_shared_sandbox", "reward_workers"]

T = TypeVar("T")


class _Spawner:
    """One thread that lives as long as the process and starts every worker process."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.jobs: queue.Queue[tuple[Callable[[], Any], Future]] = queue.Queue()
        threading.Thread(target=self._loop, name="codemix-reward-spawner", daemon=True).start()

    def _loop(self) -> None:
        while True:
            fn, fut = self.jobs.get()
            try:
                fut.set_result(fn())
            except BaseException as e:  # handed to the caller
                fut.set_exception(e)

    def call(self, fn: Callable[[], T]) -> T:
        fut: Future = Future()
        self.jobs.put((fn, fut))
        return fut.result()


_spawner: _Spawner | None = None
_spawner_lock = threading.Lock()


def _spawn() -> WorkerProcess:
    global _spawner
    with _spawner_lock:
        if _spawner is None or _spawner.pid != os.getpid():
            _spawner = _Spawner()
        sp = _spawner
    return sp.call(WorkerProcess)


class RewardSandbox(Sandbox):
    """A `Sandbox` whose workers are started from a long-lived thread (see the module docstring)."""

    def __init__(self, workers: int | None = None, **kwargs: Any) -> None:
        super().__init__(workers, **kwargs)
        time.sleep(0.01)  # a worker killed with its starting thread is gone by now
        for _ in range(self.n_workers):
            w = self._idle.get()
            self._idle.put(w if w.alive() else self._replace(w))

    def _replace(self, w: WorkerProcess) -> WorkerProcess:
        w.kill()
        new = _spawn()
        with self._lock:
            self._all[self._all.index(w)] = new
        return new


_lock = threading.Lock()
_box: RewardSandbox | None = None
_pid: int | None = None


def reward_workers() -> int:
    """Pool size: `CODEMIX_REWARD_WORKERS` when set, else the CPUs available to this process."""
    raw = os.environ.get("CODEMIX_REWARD_WORKERS", "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            raise ValueError(
                f"CODEMIX_REWARD_WORKERS must be a whole number, got {raw!r}"
            ) from None
    return default_workers()


def shared_sandbox() -> RewardSandbox:
    """This process's sandbox, started on first call (thread-safe)."""
    global _box, _pid
    box, pid = _box, _pid
    if box is not None and pid == os.getpid() and not box._closed:
        return box
    with _lock:
        if _box is None or _pid != os.getpid() or _box._closed:
            if _box is not None and _pid == os.getpid():
                _box.close()
            # A pool inherited through fork belongs to the parent: leave it alone, start our own.
            _box = RewardSandbox(workers=reward_workers())
            _pid = os.getpid()
        return _box


def close_shared_sandbox() -> None:
    """Stop this process's pool (runs at exit; safe to call any time, the next use starts a new one)."""
    global _box, _pid
    with _lock:
        if _box is not None and _pid == os.getpid():
            _box.close()
        _box, _pid = None, None


def _forget_parent_pool() -> None:
    """In a forked child: the inherited pool is the parent's; never stop its workers from here."""
    global _box, _pid, _spawner
    box = _box
    if box is not None:
        fin = getattr(box, "_finalizer", None)
        if fin is not None:
            fin.detach()
    _box, _pid, _spawner = None, None, None


atexit.register(close_shared_sandbox)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_parent_pool)
