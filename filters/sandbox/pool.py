"""The sandbox's workers: fork servers started together, each lent to one thread at a time, a dead
one replaced by a fresh one, all killed when the pool closes or is collected.

Closing is prompt, whatever the workers are doing (a Ctrl-C closes the pool of a build that is
judging): idle workers are killed, busy ones told to quit, which kills their runs; the threads
they are lent to then read the end of file, and each gets back an error, not a fresh worker.
A thread that waits for a worker when the pool closes gets the same error."""

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
    for w in workers:  # all told first: they quit together
        w.ask_to_quit()
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
        """An idle worker, lent to the caller until `release` (waits for one); RuntimeError
        once the pool is closed."""
        if self.closed:
            raise RuntimeError("sandbox is closed")
        w = self._idle.get()
        if self.closed:  # closed while we waited: the worker goes back for the next waiter
            self._idle.put(w)
            raise RuntimeError("sandbox is closed")
        try:
            return w if w.alive() else self.replace(w)
        except BaseException:
            self._idle.put(w)  # (a worker that failed to start: the slot stays for another try)
            raise

    def release(self, w: WorkerProcess) -> None:
        """A lent worker back; a dead one is replaced before it is lent again, so that giving
        it back (on an interrupt, say) starts nothing. Killed if the pool closed meanwhile."""
        if self.closed:
            w.kill()  # (its pipes closed by the thread it was lent to)
        self._idle.put(w)

    def replace(self, w: WorkerProcess) -> WorkerProcess:
        """Kill a lent worker and start another in its slot (still lent to the caller); on a
        closed pool, only kill it."""
        w.kill()
        if self.closed:
            return w
        new = self._start()
        with self._lock:
            self.workers[self.workers.index(w)] = new
        return new

    def close(self) -> None:
        """Kill every worker and everything they started. Idle workers go at once; a lent one is
        stopped (its runs killed) and its pipes are closed when its thread gives it back."""
        self.closed = True
        idle: list[WorkerProcess] = []
        while True:
            try:
                idle.append(self._idle.get_nowait())
            except queue.Empty:
                break
        with self._lock:
            lent = [w for w in self.workers if w not in idle]
        for w in idle + lent:
            w.ask_to_quit()
        for w in lent:
            w.stop()
        self._finalizer.detach()
        for w in idle:
            w.kill()
            self._idle.put(w)  # wakes a thread waiting in `acquire`, which then sees the pool closed

    def disown(self) -> None:
        """In a forked child: the workers belong to the parent; never stop them from here."""
        self._finalizer.detach()
        self.closed = True
