"""Work spread over threads that an interrupt stops at once.

`ThreadPoolExecutor` used as a context manager waits, on the way out, for every job it was given:
a Ctrl-C in the thread that waits for the results ran on until the whole batch was done (up to
22 s of a build's amplify chunk). `thread_map` cancels the jobs not yet started and does not wait
for those running: they end when what they wait on goes (the sandbox's workers, which the
caller's `close()` stops).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["thread_map"]

_T = TypeVar("_T")
_R = TypeVar("_R")


def thread_map(fn: Callable[[_T], _R], items: Iterable[_T], threads: int) -> list[_R]:
    """`[fn(x) for x in items]`, on `threads` threads, in order. On any exception (a job's, or a
    KeyboardInterrupt while waiting) the jobs not started are cancelled and the call returns
    without waiting for the running ones."""
    ex = ThreadPoolExecutor(max(1, threads))
    try:
        results = list(ex.map(fn, items))
    except BaseException:
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    ex.shutdown(wait=True)
    return results
