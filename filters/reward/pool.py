"""One lazily started `Sandbox` per process, shared by every reward call in it and closed at exit.

Trainers call reward functions per sample, from several threads (verl's reward loop) or several
processes (reward workers, data-parallel ranks); each process gets its own pool, created on first
use. A forked child never reuses its parent's pool, nor stops it at exit: it starts its own.
`CODEMIX_REWARD_WORKERS` sets the pool size (default: the CPUs this process may use).
"""

from __future__ import annotations

import atexit
import os
import threading

from filters.sandbox import Sandbox, default_workers

__all__ = ["shared_sandbox", "close_shared_sandbox", "reward_workers"]

_lock = threading.Lock()
_box: Sandbox | None = None
_pid: int | None = None


def reward_workers() -> int:
    """Pool size: `CODEMIX_REWARD_WORKERS` when set, else the CPUs available to this process."""
    raw = os.environ.get("CODEMIX_REWARD_WORKERS", "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            raise ValueError(f"CODEMIX_REWARD_WORKERS must be a whole number, got {raw!r}") from None
    return default_workers()


def shared_sandbox() -> Sandbox:
    """This process's sandbox, started on first call (thread-safe)."""
    global _box, _pid
    box, pid = _box, _pid
    if box is not None and pid == os.getpid() and not box.closed:
        return box
    with _lock:
        if _box is None or _pid != os.getpid() or _box.closed:
            _box = Sandbox(workers=reward_workers())
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
    global _box, _pid
    if _box is not None:
        _box.disown()
    _box, _pid = None, None


atexit.register(close_shared_sandbox)
os.register_at_fork(after_in_child=_forget_parent_pool)
