"""The fork server: a small, pre-started process that runs each test in a fresh, confined child.

Run as a script (`python -s -B worker/main.py UID [DIR...]`: DIRs are host directories runs may read,
such as the C++ compiler's precompiled headers), stdlib only, so that it stays small and forks in
about a millisecond; its parts are the modules beside it (`worker/*.py`, and `wire.py`, the
names it shares with the sandbox). It reads length-prefixed pickled messages on fd 0 and answers
on fd 1 (`wire`); its first message is (HELLO, the isolation in force and its I/O directory):

- (RUN, Run): fork a child that runs the program once, on the input the sandbox wrote to the I/O
  directory (or a checker), hold its whole process tree to the limits (`worker/monitor`), and
  answer how it ended (`RunEnd`); the sandbox reads the output files itself. The server never
  reads a program, an input or an output (`worker/server`, `worker/child`).
- (QUIT, None) stops the worker.

When started as root the worker enters its own network, IPC and mount namespaces (private /tmp,
/var/tmp, /dev/shm, /run/lock) and a fresh session keyring, its server is the init of a pid
namespace of its own, whose /proc shows a program only its own processes, and each child runs as
a dedicated unprivileged uid. After every run the server kills every process of that uid,
removes its IPC objects and clears its keyrings, so nothing outlives a run. In the mount
namespace only the system directories and the interpreter's library stay visible: every other
top-level directory (/home, /opt, /srv, /run, a project or data directory) is covered by an
empty tmpfs, so a program cannot read the dataset it is graded on nor reach a unix socket on the
host (`worker/isolation`).
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
import signal
import string  # noqa: F401
import sys
import typing  # noqa: F401

import isolation
import server as worker_server
import wire


def main() -> None:
    rfd, wfd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    iso = isolation.Isolation(int(sys.argv[1]), tuple(sys.argv[2:]))
    iso.confine()
    # Not PR_SET_PDEATHSIG here: it fires when the *thread* that started us exits, and sandboxes
    # start workers from short-lived threads. The sandbox's death closes the control pipe (end of
    # file, seen while idle and while a run runs).
    if not iso.enter_pid_namespace():
        sys.exit(worker_server.Server(iso, rfd, wfd).serve())
    pid = os.fork()
    if pid == 0:  # the init of the new pid namespace: when it exits, the kernel kills the rest
        code = wire.ExitCode.STOPPED
        try:
            isolation.libc.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            iso.report["pidns"] = iso.mount_proc()
            if iso.report["pidns"]:
                code = worker_server.Server(iso, rfd, wfd).serve()
        finally:
            os._exit(code)
    os.close(rfd)
    os.close(wfd)
    sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))


if __name__ == "__main__":
    main()
