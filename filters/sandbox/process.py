"""The parent's handle on one fork-server worker: start it scrubbed, talk to it, kill it."""

from __future__ import annotations

import os
import pickle
import random
import resource
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from filters.sandbox.outcome import IoDir
from filters.sandbox.worker import wire

__all__ = ["WorkerProcess", "WorkerDied", "WORKER_ENV"]

_WORKER = str(Path(__file__).with_name("worker") / "main.py")
#: The worker's whole environment: nothing of the parent's (no secrets, no PYTHON* settings).
WORKER_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
_STACK_BYTES = 256 * 1024 * 1024


class WorkerDied(RuntimeError):
    """The worker exited, hung or answered garbage: a harness fault (SE), retried by the caller."""


def _preexec() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    want = _STACK_BYTES if hard == resource.RLIM_INFINITY else min(_STACK_BYTES, hard)
    try:
        resource.setrlimit(
            resource.RLIMIT_STACK,
            (max(soft, want) if soft != resource.RLIM_INFINITY else soft, hard),
        )
    except (ValueError, OSError):
        pass


class WorkerProcess:
    """One running worker; not thread-safe (the sandbox hands each to one thread at a time)."""

    def __init__(
        self, uid: int | None = None, hash_seed: int = 0, visible: tuple[str, ...] = ()
    ) -> None:
        self.uid = uid if uid is not None else random.randrange(200_000, 2_000_000_000)
        self.io: IoDir | None = None
        self.isolation: dict[str, Any] = {}
        #: one message at a time on the control pipe: `stop()` may come from another thread while
        #: the thread the worker is lent to writes a request
        self._sending = threading.Lock()
        self.proc = subprocess.Popen(
            [sys.executable, "-s", "-B", _WORKER, str(self.uid), *visible],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=dict(WORKER_ENV, PYTHONHASHSEED=str(hash_seed)),
            cwd="/",
            close_fds=True,
            start_new_session=True,
            preexec_fn=_preexec,
        )
        self._w = self.proc.stdin.fileno()  # type: ignore[union-attr]
        self._r = self.proc.stdout.fileno()  # type: ignore[union-attr]
        try:
            op, report = self.recv(timeout=60.0)
        except WorkerDied:
            self.kill()
            raise
        if op != wire.Op.HELLO:
            self.kill()
            raise WorkerDied(f"worker did not start: {op!r}")
        self.isolation = report
        # the I/O directory lives in the worker's mount namespace: reached through its root
        iodir = report["iodir"]
        try:
            self.io = IoDir(f"/proc/{self.proc.pid}/root{iodir}" if report["mountns"] else iodir)
        except OSError as e:
            self.kill()
            raise WorkerDied(f"cannot reach the worker's I/O directory: {e}") from None

    def _read_exact(self, n: int, deadline: float) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._r], [], [], left)[0]:
                raise WorkerDied("worker did not answer in time")
            chunk = os.read(self._r, n - len(buf))
            if not chunk:
                raise WorkerDied(f"worker exited ({self.proc.poll()})")
            buf += chunk
        return bytes(buf)

    def recv(self, timeout: float) -> tuple[str, Any]:
        """The worker's next message, (op, body)."""
        deadline = time.monotonic() + timeout
        (n,) = wire.HEADER.unpack(self._read_exact(wire.HEADER.size, deadline))
        try:
            op, body = pickle.loads(self._read_exact(n, deadline))
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as e:
            raise WorkerDied(f"garbled answer: {e}") from None
        return op, body

    def send(self, op: str, body: Any) -> None:
        try:
            with self._sending:
                wire.write_all(self._w, wire.frame(op, body))
        except OSError as e:
            raise WorkerDied(f"cannot write to worker: {e}") from None

    def call(self, op: str, body: Any, timeout: float) -> wire.RunEnd:
        """Send one request and read its answer."""
        self.send(op, body)
        got, answer = self.recv(timeout)
        if got != op or not isinstance(answer, dict):
            raise WorkerDied(f"answer out of step: {got!r} to {op!r}")
        return wire.RunEnd(**answer)

    def files(self) -> IoDir:
        """The worker's I/O directory: where a run's data goes in and comes out."""
        if self.io is None:
            raise WorkerDied("worker stopped")
        return self.io

    def alive(self) -> bool:
        return self.proc.poll() is None

    def ask_to_quit(self) -> None:
        """Tell the worker to stop, without waiting: an idle one quits, a busy one kills its run
        within a poll (its server watches the control pipe while a run runs) and quits. Safe from
        any thread: the pipe stays open for the thread the worker is lent to."""
        if self.proc.poll() is None:
            try:
                self.send(wire.Op.QUIT, None)
            except WorkerDied:
                pass

    def stop(self) -> None:
        """Stop the worker and reap it, leaving its pipes open (the thread it is lent to may be
        reading them: it then reads the end of file). Its children die with it: parent-death
        signal, the pid namespace, the uid sweep."""
        self.ask_to_quit()
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                pass
        if self.proc.poll() is None:
            # the worker and its server (the init of the runs' pid namespace: the kernel then
            # kills every run): it leads its own process group, whose id cannot be reused before
            # the worker is reaped below
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                self.proc.kill()
            self.proc.wait()

    def kill(self) -> None:
        """Stop the worker (`stop`) and close its pipes: only by the thread it is lent to, or when
        none is (a closed descriptor's number may be reused by another file at once)."""
        self.stop()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()  # type: ignore[union-attr]
            except OSError:
                pass
        if self.io is not None:
            self.io.close()
            self.io = None
