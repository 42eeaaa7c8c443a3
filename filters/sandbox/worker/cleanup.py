"""What follows every run: nothing of it is left behind, no process, no file, no IPC object, no key.

Part of the worker script (stdlib only). The server calls `Cleanup.sweep` while a run's tree is
held and once it has ended, `after_run` after every answer, and `remove_base` when the worker
ends; the confinement these work in is `worker/isolation`'s.
"""

from __future__ import annotations

import ctypes
import os
import signal
import struct
import time
from typing import Any

import isolation

#: Per SysV kind, the *_INFO command whose answer counts the objects that exist, and where:
#: shm_info.used_ids, msginfo.msgpool, seminfo.semusz.
_IPC_COUNTS = {"shm": (14, 0), "msg": (12, 0), "sem": (19, 28)}
_ipc_info = ctypes.create_string_buffer(256)


def libc_ipc_ctl(kind: str, ident: int, op: int, buf: Any) -> int:
    """shmctl, msgctl or semctl."""
    if kind == "shm":
        return isolation.libc.shmctl(ident, op, buf)
    if kind == "msg":
        return isolation.libc.msgctl(ident, op, buf)
    return isolation.libc.semctl(ident, 0, op, buf)


def _read_small(path: str) -> bytes:
    """A whole file, in reads small enough to come from the heap (a big read buffer is a fresh
    mapping for every call)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


class Cleanup:
    """What it takes to leave nothing of a run behind, in the confinement `iso` set up."""

    def __init__(self, iso: isolation.Isolation) -> None:
        self.iso = iso

    def clean_scratch(self) -> None:
        """Remove the run directory and, with a private /tmp, everything a run left there."""
        try:
            os.rmdir(self.iso.rundir)  # the common case: a run that wrote nothing there
        except FileNotFoundError:
            pass
        except OSError:
            isolation.remove_tree(self.iso.rundir)
        for d in self.iso.scratch:
            try:
                names = os.listdir(d)
            except OSError:
                continue
            keep = self.iso.keep.get(d, ())
            for n in names:
                if (n == ".cmio" and d == self.iso.base) or n in keep:
                    continue
                p = os.path.join(d, n)
                if os.path.isdir(p) and not os.path.islink(p):
                    isolation.remove_tree(p)
                else:
                    try:
                        os.unlink(p)
                    except OSError:
                        pass

    def sweep(self) -> None:
        """Kill everything a run left behind and reap it, until nothing of it is left.

        As a child subreaper (and, with a pid namespace, its init), every living descendant of a
        finished run is our child, so the run is gone when we have no children left; under
        root, a kill of every process of the run's uid must then find none.
        """
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            try:
                while os.waitpid(-1, os.WNOHANG)[0] > 0:
                    pass
            except ChildProcessError:
                if not (self.iso.root and self.kill_uid()):
                    return
            else:
                if self.iso.root:
                    self.kill_uid()
                else:
                    self._kill_children()
            time.sleep(0.0002)

    def kill_uid(self) -> bool:
        """SIGKILL every process of the run's uid (its whole tree, daemons included); False when
        there was none."""
        try:
            os.setresuid(self.iso.uid, self.iso.uid, 0)
            try:
                os.kill(-1, signal.SIGKILL)
                return True
            except OSError:
                return False
        finally:
            os.setresuid(0, 0, 0)

    @staticmethod
    def _kill_children() -> None:
        """Without root: SIGKILL our direct children (orphans are reparented to us, a subreaper)."""
        try:
            with open(f"/proc/self/task/{os.getpid()}/children") as f:
                pids = [int(p) for p in f.read().split()]
        except OSError:
            pids = []
        for p in pids:
            for fn in (os.killpg, os.kill):
                try:
                    fn(p, signal.SIGKILL)
                except OSError:
                    pass

    def remove_ipc(self) -> None:
        """Remove every SysV IPC object and POSIX message queue of our namespace (what the last
        run created). The kernel's counts say first whether there is any (a call each, where
        listing /proc/sysvipc takes a file each)."""
        if not self.iso.report["ipcns"]:
            return
        for kind, (info_op, offset) in _IPC_COUNTS.items():
            if (
                libc_ipc_ctl(kind, 0, info_op, _ipc_info) >= 0
                and not struct.unpack_from("i", _ipc_info, offset)[0]
            ):
                continue  # none of this kind
            try:
                lines = _read_small(f"/proc/sysvipc/{kind}").splitlines()[1:]
                ids = [int(line.split()[1]) for line in lines if line.strip()]
            except (OSError, IndexError, ValueError):
                continue
            for i in ids:
                libc_ipc_ctl(kind, i, isolation.IPC_RMID, None)
        if self.iso.mqdir is not None:
            for name in os.listdir(self.iso.mqdir):
                try:
                    os.unlink(os.path.join(self.iso.mqdir, name))
                except OSError:
                    pass

    def clear_keys(self) -> None:
        """A fresh session keyring for the next run (the last one's, which it possessed and may
        have filled or locked, is dropped), and the run user's keyrings emptied: keys added
        there would reach its next program."""
        if not self.iso.report["keyrings"]:
            return
        isolation.keyctl(isolation.KEYCTL_JOIN_SESSION_KEYRING, None)
        try:
            os.setresuid(self.iso.uid, self.iso.uid, 0)
            isolation.keyctl(isolation.KEYCTL_CLEAR, isolation.KEY_SPEC_USER_KEYRING)
            isolation.keyctl(isolation.KEYCTL_CLEAR, isolation.KEY_SPEC_USER_SESSION_KEYRING)
        finally:
            os.setresuid(0, 0, 0)

    def after_run(self) -> None:
        """Everything a run leaves outside its processes (IPC objects, keys, files in the private
        directories), then a fresh run directory for the next one."""
        self.remove_ipc()
        self.clear_keys()
        self.clean_scratch()
        os.mkdir(self.iso.rundir, 0o700)
        if self.iso.root:
            os.chown(self.iso.rundir, self.iso.uid, self.iso.uid)

    def remove_base(self) -> None:
        """At the worker's end: without a private /tmp, the directory we made for the runs."""
        self.clean_scratch()
        if not self.iso.report["private_tmp"]:
            isolation.remove_tree(self.iso.base)
