"""Load we make on purpose, for benchmarks that measure under it: burner processes that die with
the script that started them (however it dies) and after `max_s` in any case.

`cpu`: a busy loop (the scheduler's contention). `mem`: maps, writes and unmaps 256 MB over and
over (the kernel's page allocator and memory bandwidth contended)."""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

_PR_SET_PDEATHSIG = 1

CODE = {
    "cpu": "import time\nend = time.monotonic() + {s}\nwhile time.monotonic() < end:\n    pass\n",
    "mem": (
        "import mmap, time\nend = time.monotonic() + {s}\nwhile time.monotonic() < end:\n"
        "    m = mmap.mmap(-1, 256 << 20)\n"
        "    for i in range(0, 256 << 20, 4096):\n        m[i] = 1\n"
        "    m.close()\n"
    ),
}


def _die_with_parent() -> None:
    """In a burner: SIGKILL when the script that started it dies."""
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


@contextmanager
def burners(n: int, max_s: float, kind: str = "cpu", settle_s: float = 0.0) -> Iterator[list[int]]:
    """`n` burner processes of `kind` (`CODE`) for the duration of the block; their pids. The
    block starts `settle_s` after they do."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(n):
            procs.append(subprocess.Popen([sys.executable, "-c", CODE[kind].format(s=max_s)],
                                          preexec_fn=_die_with_parent))  # fmt: skip
        if n and settle_s:
            time.sleep(settle_s)
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()
