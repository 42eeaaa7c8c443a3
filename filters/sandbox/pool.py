"""The sandbox's workers: fork servers started together, each lent to one thread at a time, a dead
one replaced by a fresh one, all killed when the pool closes or is collected."""

from __future__ import annotations

import os
import queue
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from filters.sandbox.process import WorkerProcess

__all__ = ["WorkerPool", "default_workers"]


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def _shutdown(workers: list[WorkerProcess]) -> None:
    for w in workers:
        w.kill()


class WorkerPool:
    """`n` confined fork-server workers whose programs hash str with `hash_seed`, and that see the
    host directories `visible` besides the system's (the C++ precompiled headers)."""

    def __init__(self, n: int, hash_seed: int, visible: tuple[str, ...]) -> None:
        self.hash_seed = hash_seed
        self.visible = visible
        #: every worker, idle or lent; a replaced worker's slot holds its replacement
        self.workers: list[WorkerProcess] = []
        self._idle: queue.Queue[WorkerProcess] = queue.Queue()
        self._lock = threading.Lock()
        self.closed = False
        with ThreadPoolExecutor(n) as ex:
            started = list(ex.map(lambda _: self._start(), range(n)))
        for w in started:
            self.workers.append(w)
            self._idle.put(w)
        #: the isolation in force, as the first worker reported it
        self.isolation: dict[str, Any] = dict(started[0].isolation)
        self._finalizer = weakref.finalize(self, _shutdown, self.workers)

    def _start(self) -> WorkerProcess:
        return WorkerProcess(hash_seed=self.hash_seed, visible=self.visible)

    def acquire(self) -> WorkerProcess:
        """An idle worker, lent to the caller until `release` (waits for one)."""
        if self.closed:
            raise RuntimeError("sandbox is closed")
        return self._idle.get()

    def release(self, w: WorkerProcess) -> None:
        """A lent worker back (replaced first if it died)."""
        if not w.alive():
            w = self.replace(w)
        self._idle.put(w)

    def replace(self, w: WorkerProcess) -> WorkerProcess:
        """Kill a lent worker and start another in its slot (still lent to the caller)."""
        w.kill()
        new = self._start()
        with self._lock:
            self.workers[self.workers.index(w)] = new
        return new

    def close(self) -> None:
        """Kill every worker and everything they started."""
        self.closed = True
        self._finalizer()

    def disown(self) -> None:
        """In a forked child: the workers belong to the parent; never stop them from here."""
        self._finalizer.detach()
        self.closed = True
