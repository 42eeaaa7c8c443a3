"""The fork server: a small, pre-started process that judges each program in a fresh session.

Run as a script (`python -s -B worker.py UID`), stdlib only, so that it stays small and forks in
about a millisecond; its parts are the modules beside it (`worker_*.py`, and `wire.py`, the
pipe's names shared with the sandbox). It reads length-prefixed pickled messages on fd 0 and
answers on fd 1 (`wire`); its first message is (HELLO, the isolation in force):

- (START, {"io_mb"}): fork a session, which answers what follows until (END, None) and exits.
  Neither gets an answer, so a session costs no round trip (`worker_server`).
- In a session: (PROG, Program) compiles the program once -> OK, CE or SE; (TEST, TestRun) forks a
  child that runs it on one test; (CHECK, CheckRun) runs a checker, confined too
  (`worker_session`, `worker_child`). Each run's whole process tree is held to its limits
  (`worker_monitor`).
- (QUIT, None) stops the worker.

When started as root the worker enters its own network, IPC and mount namespaces (private /tmp,
/var/tmp, /dev/shm, /run/lock) and a fresh session keyring, becomes a child subreaper, and runs
each child as a dedicated unprivileged uid; after every test it kills every process of that uid,
removes its SysV IPC objects and clears its keyrings, so nothing outlives a test. The time and
memory limits bind the whole process tree of a test, not each process alone. In its mount
namespace only the system directories and the interpreter's library stay visible: every other
top-level directory (/home, /opt, /srv, /run, a project or data directory) is covered by an empty
tmpfs, so a program cannot read the dataset it is graded on nor reach a unix socket on the host
(`worker_isolation`).
"""

from __future__ import annotations

# Imports marked F401 preload modules that solutions commonly use: loaded once here, shared
# copy-on-write by every child. Not `threading` nor `random`: importing threading made every fork
# dearer, and a program that imports random must seed it afresh.
import bisect  # noqa: F401
import collections  # noqa: F401
import datetime  # noqa: F401
import functools  # noqa: F401
import heapq  # noqa: F401
import itertools  # noqa: F401
import math  # noqa: F401
import operator  # noqa: F401
import os
import re  # noqa: F401
import string  # noqa: F401
import sys
import typing  # noqa: F401

import worker_isolation as isolation
import worker_server


def main() -> None:
    rfd, wfd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    # Not PR_SET_PDEATHSIG: it fires when the *thread* that started us exits, and sandboxes start
    # workers from short-lived threads. The sandbox's death closes the control pipe (end of file
    # while idle) and changes a session's parent (checked while a test runs).
    iso = isolation.Isolation(int(sys.argv[1]))
    iso.confine()
    sys.exit(worker_server.Server(iso, rfd, wfd).serve())


if __name__ == "__main__":
    main()
