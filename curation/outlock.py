"""One writer per output directory: a build holds an exclusive lock on its `--out` while it runs.

The lock is `fcntl.flock` on `OUT/.codemix.lock`, which holds the writer's pid and command line.
The kernel drops a flock when its process ends, however it ends (`kill -9` included), so a killed
build never leaves a directory locked: the file may stay, but nobody holds it, and the next writer
takes it. A second build into the same `--out`, and an export or a verify writing into a directory
whose build is running, are refused with one line naming the holder (`busy_error`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

from filters.contracts import UserError

__all__ = ["LOCK_FILE", "hold_out_lock", "holder_of", "refuse_if_locked"]

#: The lock file a running build holds in its `--out`.
LOCK_FILE = ".codemix.lock"


def _command() -> str:
    """This process's command line, as a user would type it (`python -m curation.cli` is `codemix`)."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "codemix"
    if name in ("cli.py", "__main__.py"):
        name = "codemix"
    return shlex.join([name, *sys.argv[1:]])


def _busy(directory: Path, holder: str, doing: str) -> UserError:
    return UserError(
        f"{directory} is being written by another process ({holder}); {doing}: wait for it to finish, "
        "or choose another --out directory"
    )


def holder_of(directory: str | Path) -> str | None:
    """`pid N: COMMAND` of the process that holds `directory`'s lock now, or None when none does."""
    path = Path(directory) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            return _describe(path)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _describe(path: Path) -> str:
    try:
        pid, _, command = path.read_text(encoding="utf-8", errors="replace").partition("\n")
    except OSError:
        return "pid unknown"
    return f"pid {pid.strip() or 'unknown'}: {command.strip() or 'command unknown'}"


def refuse_if_locked(path: str | Path, doing: str) -> None:
    """A UserError when `path`, or a directory holding it, is locked by a running build."""
    path = Path(path).absolute()
    for d in [path, *path.parents]:
        holder = holder_of(d)
        if holder is not None:
            raise _busy(d, holder, doing)


@contextlib.contextmanager
def hold_out_lock(directory: str | Path, doing: str = "a second build there is refused") -> Iterator[None]:
    """Hold `directory`'s lock (the directory must exist) for the `with` block, or raise a
    UserError naming the process that holds it. The lock file is removed on the way out."""
    path = Path(directory) / LOCK_FILE
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            raise _busy(Path(directory), _describe(path), doing) from None
        try:  # the file we locked may have been removed by its last holder meanwhile: take the new one
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n{_command()}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)
