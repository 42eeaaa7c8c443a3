"""Accounting: watch a run's process tree against its limits, then say how it ended.

Part of the worker script (stdlib only). The time and memory limits bind the whole tree of a run
(the child, every descendant alive, and what each has reaped), not each process alone:
RLIMIT_AS and RLIMIT_CPU bind one process, so without the sum helpers a program forks could hold
many times the memory limit, or compute past the time limit, between two checks. How a run
ended is told in numbers only (`wire.RunEnd`): the sandbox reads the run's output itself and
gives the verdict (`outcome.py`).
"""

from __future__ import annotations

import os
import resource
import select
import signal
import time
from collections.abc import Callable
from typing import NamedTuple

import wire

PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")
#: seconds between two checks of a running tree
POLL_S = 0.1


class Ending(NamedTuple):
    """How a run ended, as the kernel tells it."""

    status: int  # wait status
    rusage: resource.struct_rusage
    killed: str | None  # "cpu", "mem" or "wall" when we stopped it
    wall_s: float
    cpu_s: float  # the whole tree's


def scheduled_s(pid: int) -> float:
    """Seconds the process has been running or runnable (on a CPU or in a run queue)."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as f:
            run_ns, wait_ns = f.read().split()[:2]
        return (int(run_ns) + int(wait_ns)) / 1e9
    except (OSError, ValueError):
        return 0.0


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                out.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            pass
    return out


def private_pages(pid: int, rss: int) -> int:
    """Pages only this process holds: a forked helper shares the rest with its parent, so its
    resident size would count the interpreter twice (falls back to that where the kernel cannot
    tell)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            kb = sum(int(line.split()[1]) for line in f if line.startswith(b"Private_"))
        return kb * 1024 // PAGE
    except (OSError, IndexError, ValueError):
        return rss


def tree_usage(pid: int) -> tuple[int, int]:
    """(CPU clock ticks, resident pages) of the run now: the child, every descendant alive, and
    what each has reaped; orphans (reparented to us, the subreaper) are found among our children.
    Memory is the child's resident size plus what each other process holds privately."""
    me = os.getpid()
    stack, seen = [pid, *(c for c in children(me) if c != pid)], set()
    cpu = rss = 0
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            cpu += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
            rss += int(fields[21]) if p == pid else private_pages(p, int(fields[21]))
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        stack.extend(children(p))
    return cpu, rss


def watch(
    pid: int,
    lim: wire.RunLimits,
    t0: float,
    abandoned: Callable[[], bool],
    cleanup: Callable[[], None],
) -> Ending:
    """Wait for the run to end, stopping it at a limit. `cleanup` then kills and reaps what it
    left behind, so the tree's CPU (the run's and its orphans', reaped by us) is complete. When
    `abandoned()` (checked every POLL_S) the run is killed and this process exits."""
    tree0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    killed = None
    try:
        pfd = os.pidfd_open(pid)
    except OSError:
        pfd = None
    # The wall ceiling counts time the program spent blocked (sleeping, waiting), not time it was
    # runnable but starved by a loaded machine; a hard cap of 10x still ends everything.
    hard_deadline = t0 + wire.STARVED_CAP * lim.wall_s
    while True:
        if pfd is not None:
            select.select([pfd], [], [], POLL_S)
        else:
            time.sleep(0.005)
        wpid, status, rusage = os.wait4(pid, os.WNOHANG)
        if wpid == pid:
            break
        if abandoned():
            os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
            cleanup()
            os._exit(wire.ExitCode.STOPPED)
        now = time.monotonic()
        if now >= hard_deadline or now - t0 - scheduled_s(pid) >= lim.wall_s:
            killed = "wall"
        else:
            cpu_ticks, rss_pages = tree_usage(pid)
            if cpu_ticks / TICK > lim.time_s:
                killed = "cpu"
            elif rss_pages * PAGE > lim.memory_mb * 1048576:
                killed = "mem"  # resident memory past the limit (RLIMIT_AS has headroom)
        if killed:
            os.kill(pid, signal.SIGKILL)
            _, status, rusage = os.wait4(pid, 0)
            break
    wall = time.monotonic() - t0
    if pfd is not None:
        os.close(pfd)
    cleanup()
    # CPU of the whole tree: the child, what it reaped, and every process it left behind (reaped
    # by the sweep: we are their subreaper). A program that hands its work to a process it never
    # waits for still pays for it.
    tree = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = tree.ru_utime + tree.ru_stime - tree0.ru_utime - tree0.ru_stime
    return Ending(status, rusage, killed, wall, cpu)


def run_end(end: Ending, iodir: str, present: set[str]) -> wire.RunEnd:
    """How the run ended, and how much it wrote (`present`: the I/O directory's files; none is
    read here, only the harness's own count of the CPU it spent compiling, not the program's)."""
    status = end.status
    files = wire.Files

    def size(name: str) -> int:
        return os.stat(os.path.join(iodir, name)).st_size if name in present else 0

    compile_s = 0.0
    if files.COMPILE_NS in present:
        try:
            with open(os.path.join(iodir, files.COMPILE_NS), "rb") as f:
                compile_s = int(f.read(32)) / 1e9
        except (OSError, ValueError):
            pass
    return wire.RunEnd(
        exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        killed=end.killed,
        cpu_ms=max(0.0, end.cpu_s - compile_s) * 1000.0,
        wall_ms=end.wall_s * 1000.0,
        peak_mem_kb=end.rusage.ru_maxrss,
        out_bytes=size(files.STDOUT),
        err_bytes=size(files.STDERR),
        record_bytes=size(files.RECORD),
    )
