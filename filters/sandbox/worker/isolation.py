"""The worker's confinement: namespaces, mounts, keyrings, and the cleanup that follows every run.

Part of the worker script (stdlib only). `Isolation.confine` runs once, in the process the sandbox
started: as root it enters its own network, IPC and mount namespaces (private /tmp, /var/tmp,
/dev/shm, /run/lock; every top-level directory outside the system's covered; SysV IPC capped) and
a fresh session keyring. `enter_pid_namespace` then makes the next child, the server, the init
of a pid namespace of its own, which mounts a /proc that shows an unprivileged program only the
processes of its own uid. Before each run `cover_new_tops` and `size_io` keep it so; after every
run `worker/cleanup` leaves nothing of it behind (`remove_tree` is its removal of a directory).
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys
import time

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
IPC_RMID = 0
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR = 1, 7
KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -4, -5

#: Private, empty tmpfs per worker, and the most a program may write there (MB). tmpfs is memory
#: that RLIMIT_AS does not count, so these bound what a run can hold beyond its memory limit.
#: The captured stdout and stderr live apart, on a tmpfs sized by the run's output limit.
PRIVATE_DIRS = {"/tmp": 256, "/var/tmp": 16, "/dev/shm": 64, "/run/lock": 1}
#: Top-level directories a program may see (the private ones above are emptied); all others are
#: covered, and only the interpreter's library is bound back into them, read-only.
SYSTEM_DIRS = frozenset(
    {
        "bin",
        "sbin",
        "lib",
        "lib32",
        "lib64",
        "libx32",
        "usr",
        "etc",
        "dev",
        "proc",
        "sys",
        "tmp",
        "var",
    }
)
#: SysV IPC of a namespace of ours, which detached segments and queued messages hold beyond the
#: memory limit (no process maps them; the kernel's defaults allow terabytes of shared memory):
#: all segments together at most SHM_MB, like /dev/shm; at most MSG_QUEUES queues of 16 KB.
SHM_MB = 64
#: MB of a fresh worker's I/O directory, before a run sizes it: room for a compiled program the
#: sandbox's cache puts there ahead of its first run (up to the compile's 64 MB output limit);
#: a cap, not memory used
FRESH_IO_MB = 68
MSG_QUEUES = 16

libc = ctypes.CDLL(None, use_errno=True)
#: keyctl(2) has no libc wrapper: its syscall number, where known
_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)


def keyctl(op: int, arg: int | None) -> int:
    return libc.syscall(_KEYCTL, op, arg) if _KEYCTL else -1


def cap_ipc() -> bool:
    """Cap SysV IPC in our IPC namespace (the limits are the namespace's own)."""
    limits = {"shmall": SHM_MB * 1048576 // os.sysconf("SC_PAGE_SIZE"), "shmmax": SHM_MB * 1048576}
    limits["msgmni"] = MSG_QUEUES
    try:
        for name, value in limits.items():
            with open(f"/proc/sys/kernel/{name}", "w") as f:
                f.write(str(value))
    except OSError:
        return False
    return True


def remove_tree(path: str) -> None:
    """Remove a directory and all in it, never following a symbolic link (a run may leave one to
    anywhere). Not `shutil.rmtree`: shutil imports zlib, bz2 and lzma, three more libraries in
    the worker's image that every fork would copy."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        try:
            os.unlink(path)  # not a directory (or gone)
        except OSError:
            pass
        return
    try:
        _empty(fd)
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
        pass


def _empty(fd: int) -> None:
    """Remove everything in the directory open at `fd` (relative to it: no path is followed)."""
    with os.scandir(fd) as entries:
        names = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
    for name, is_dir in names:
        if is_dir:
            try:
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError:
                continue
            try:
                _empty(sub)
            finally:
                os.close(sub)
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError:
                pass
        else:
            try:
                os.unlink(name, dir_fd=fd)
            except OSError:
                pass


def cover(path: str) -> bool:
    """An empty, root-owned tmpfs over `path` in our mount namespace: the child sees nothing there."""
    return (
        libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755,size=1m")
        == 0
    )


class Isolation:
    """What confines the runs of one worker, and what it takes to leave nothing behind after one."""

    def __init__(self, uid: int, visible: tuple[str, ...] = ()) -> None:
        self.root = os.geteuid() == 0
        #: host directories a run may read besides the system's (a compiler's precompiled
        #: headers): bound back read-only like the interpreter's library
        self.visible = tuple(p for p in visible if p)
        #: the runs' uid: a dedicated unprivileged one under root, else our own
        self.uid = uid if self.root else os.getuid()
        self.report: dict = {
            "root": self.root,
            "user": self.root,
            "netns": False,
            "ipcns": False,
            "ipc_shm_mb": None,
            "mqueues_cleared": False,
            "keyrings": False,
            "mountns": False,
            "private_tmp": False,
            "scratch_mb": None,
            "host_hidden": False,
            "pidns": False,
            "proc_hidden": False,
            "iodir": None,
            "subreaper": False,
            "no_new_privs": False,
            "kill": "every process of the run's uid, then every descendant (subreaper)"
            if self.root
            else "every descendant (subreaper)",
            "uid": self.uid,
        }
        #: per private directory, the entries to keep (a runtime directory bound back into it)
        self.keep: dict[str, set[str]] = {d: set() for d in PRIVATE_DIRS}
        #: top-level names seen at / when last covered, and its modification time then
        self.tops_seen: set[str] = set()
        self.root_mtime = 0
        #: where runs work: /tmp (private) or, without root, a fresh directory of ours
        self.base = "/tmp"
        #: the directories a run may leave files in, emptied after each run
        self.scratch: list[str] = []
        self.iodir = "/tmp/.cmio"
        self.rundir = "/tmp/run"
        #: the size (MB) of the I/O tmpfs, once mounted
        self.io_mb: int | None = None
        #: where our IPC namespace's POSIX message queues are listed (an mqueue mount), if anywhere
        self.mqdir: str | None = None

    # ---- once, in the worker ---------------------------------------------------------------
    def confine(self) -> None:
        """Enter our namespaces and hide the host; then make the run directories."""
        rep = self.report
        if self.root:
            rep["netns"] = libc.unshare(CLONE_NEWNET) == 0
            # SysV shared memory, semaphores and message queues outlive their process: in our own
            # IPC namespace, capped and emptied after every run, they neither hold the host's
            # memory nor carry one program's data to the next
            rep["ipcns"] = libc.unshare(CLONE_NEWIPC) == 0
            rep["ipc_shm_mb"] = SHM_MB if rep["ipcns"] and cap_ipc() else None
            # The kernel keyrings: a fresh, empty session keyring here (the one we inherited may
            # hold the trainer's keys), which the children inherit, another after every run, and
            # the run user's own keyrings cleared after every run (they outlive its processes)
            rep["keyrings"] = keyctl(KEYCTL_JOIN_SESSION_KEYRING, None) >= 0
            if (
                libc.unshare(CLONE_NEWNS) == 0
                and libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) == 0
            ):
                rep["mountns"] = True
                runtime = self._runtime_paths(self.visible)
                rep["private_tmp"] = self._private_dirs(runtime)
                rep["scratch_mb"] = dict(PRIVATE_DIRS) if rep["private_tmp"] else None
                rep["host_hidden"] = self._expose_runtime(runtime)
        rep["subreaper"] = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        # What every run shares, set once here and inherited by each child: no new privileges
        # (we never exec), no core dumps, and (below) HOME and TMPDIR in the run directory.
        rep["no_new_privs"] = libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if not rep["private_tmp"]:
            import tempfile  # not preloaded: it imports random, which a program must seed afresh

            self.base = tempfile.mkdtemp(prefix="codemix-sb-")
        self.iodir = os.path.join(self.base, ".cmio")
        self.rundir = os.path.join(self.base, "run")
        self.scratch = (
            [d for d in PRIVATE_DIRS if os.path.isdir(d)] if rep["private_tmp"] else [self.base]
        )
        os.environ["HOME"] = os.environ["TMPDIR"] = self.rundir
        os.makedirs(self.iodir, mode=0o700, exist_ok=True)
        rep["iodir"] = self.iodir
        if rep["private_tmp"]:
            self.size_io(FRESH_IO_MB)
            if rep["ipcns"]:
                # POSIX message queues outlive their process too: listed here, removed after each run
                mq = os.path.join(self.iodir, "mq")
                os.mkdir(mq, 0o700)
                flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
                if libc.mount(b"mqueue", mq.encode(), b"mqueue", flags, None) == 0:
                    self.mqdir = mq
        rep["mqueues_cleared"] = self.mqdir is not None

    def enter_pid_namespace(self) -> bool:
        """Make our next child the init of a new pid namespace; False where the kernel (or the
        lack of a mount namespace, for its /proc) does not allow it. Tried first in a throwaway
        process: once we unshare, a child that fails to set the namespace up leaves us unable to
        fork at all."""
        if not self.report["mountns"]:
            return False
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                if libc.unshare(CLONE_NEWPID | CLONE_NEWNS) == 0:
                    init = os.fork()
                    if init == 0:
                        os._exit(0 if os.getpid() == 1 and self.mount_proc() else 1)
                    code = os.waitstatus_to_exitcode(os.waitpid(init, 0)[1])
            finally:
                os._exit(code)
        if os.waitpid(pid, 0)[1] != 0:
            return False
        return libc.unshare(CLONE_NEWPID) == 0

    def mount_proc(self) -> bool:
        """In the init of the new pid namespace: a /proc of that namespace, over the host's, that
        shows an unprivileged process only the processes of its own uid (hidepid)."""
        flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
        for opts in (b"hidepid=invisible", b"hidepid=2"):
            if libc.mount(b"proc", b"/proc", b"proc", flags, opts) == 0:
                self.report["proc_hidden"] = True
                return True
        return libc.mount(b"proc", b"/proc", b"proc", flags, None) == 0

    @staticmethod
    def _runtime_paths(extra: tuple[str, ...] = ()) -> list[str]:
        """The directories the interpreter loads code from (prefixes and sys.path), and `extra`,
        minimal set."""
        needed: list[str] = []
        for p in [sys.base_prefix, sys.prefix, *sys.path, *extra]:
            p = os.path.realpath(p) if p else ""
            if p and os.path.isdir(p) and not any(p == n or p.startswith(n + "/") for n in needed):
                needed = [n for n in needed if not n.startswith(p + "/")] + [p]
        return needed

    def _private_dirs(self, runtime: list[str]) -> bool:
        """An empty tmpfs over /tmp, /var/tmp, /dev/shm and /run/lock in this mount namespace.

        Runtime directories that live inside one of them (a virtual environment under /tmp, as in
        a CI clone) are bound back read-only, through a descriptor opened before the cover, and
        `clean_scratch` leaves their top-level entry alone.
        """
        ok = True
        for d in PRIVATE_DIRS:
            if not os.path.isdir(d):
                continue
            inside = [p for p in runtime if p.startswith(d + "/")]
            held = [(p, os.open(p, os.O_PATH | os.O_DIRECTORY)) for p in inside]
            opts = f"mode=1777,size={PRIVATE_DIRS[d]}m".encode()
            ok &= libc.mount(b"tmpfs", d.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, opts) == 0
            for p, fd in held:
                os.makedirs(p, 0o755, exist_ok=True)
                ok &= (
                    libc.mount(
                        f"/proc/self/fd/{fd}".encode(), p.encode(), None, MS_BIND | MS_REC, None
                    )
                    == 0
                )
                libc.mount(None, p.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)
                os.close(fd)
                self.keep[d].add(p[len(d) + 1 :].split("/", 1)[0])
        return ok

    def _expose_runtime(self, needed: list[str]) -> bool:
        """Hide the host's files from the child, except the system and the interpreter's library.

        Covered by an empty tmpfs in this mount namespace: every top-level directory outside
        `SYSTEM_DIRS`, and any directory on the way to the library that the child could not enter
        anyway (e.g. /root, mode 0700). The library directories inside a covered one are bound
        back into it, read-only; the rest of it (datasets, keys, tokens, sockets) stays invisible.
        """
        self.tops_seen = set(os.listdir("/"))
        blocked: dict[str, list[str]] = {t: [] for t in self._host_tops(self.tops_seen, needed)}
        for p in needed:
            parts = p.strip("/").split("/")
            for i in range(1, len(parts)):
                anc = "/" + "/".join(parts[:i])
                if anc in blocked or not os.stat(anc).st_mode & 0o001:
                    blocked.setdefault(anc, []).append(p)
                    break
        ok = True
        stage_root = "/dev/shm/.cmstage" if os.path.isdir("/dev/shm") else "/tmp/.cmstage"
        os.makedirs(stage_root, 0o700, exist_ok=True)
        for anc, paths in blocked.items():
            stages = []
            for p in paths:
                stage = os.path.join(stage_root, str(len(os.listdir(stage_root))))
                os.mkdir(stage, 0o700)
                ok &= libc.mount(p.encode(), stage.encode(), None, MS_BIND | MS_REC, None) == 0
                stages.append((stage, p))
            ok &= cover(anc)
            for stage, p in stages:
                os.makedirs(p, 0o755, exist_ok=True)
                ok &= libc.mount(stage.encode(), p.encode(), None, MS_BIND | MS_REC, None) == 0
                libc.mount(None, p.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)
                libc.umount2(stage.encode(), MNT_DETACH)
                os.rmdir(stage)
        os.rmdir(stage_root)
        return ok

    @staticmethod
    def _host_tops(names: set[str], needed: list[str]) -> list[str]:
        """Top-level directories to cover; a stray file among `names` is made to read as empty."""
        tops = []
        for name in sorted(names):
            top = "/" + name
            if name in SYSTEM_DIRS or top in needed or os.path.islink(top):
                continue
            if os.path.isdir(top):
                tops.append(top)
            elif os.path.isfile(top):
                libc.mount(b"/dev/null", top.encode(), None, MS_BIND, None)
        return tops

    # ---- before each run (the server) -----------------------------------------------------
    def cover_new_tops(self) -> None:
        """Cover what appeared at / since the last run (a data directory made after start-up).
        Listed again only when / changed: its modification time moved, or is too recent to tell
        apart from a change within the same clock tick."""
        if not self.report["host_hidden"]:
            return
        mtime = os.stat("/").st_mtime_ns
        if mtime == self.root_mtime and time.time_ns() - mtime > 1_000_000_000:
            return
        self.root_mtime = mtime
        now = set(os.listdir("/"))
        new = now - self.tops_seen
        if not new:
            return
        self.tops_seen = now
        for top in self._host_tops(new, []):
            if not cover(top) and os.path.isdir(top):  # gone meanwhile: nothing to hide
                raise OSError(ctypes.get_errno(), f"cannot cover {top} from the program")

    def size_io(self, mb: int) -> None:
        """The I/O directory is its own tmpfs, out of the program's reach: room for a run's files
        (its program and input, its stdout and stderr up to the output limit: the sandbox says how
        many MB), whatever the program wrote to /tmp. Mounted once, resized when that changes."""
        if not self.report["private_tmp"] or mb == self.io_mb:
            return
        flags = MS_NOSUID | MS_NODEV | (MS_REMOUNT if self.io_mb is not None else 0)
        if libc.mount(
            b"tmpfs", self.iodir.encode(), b"tmpfs", flags, f"mode=0700,size={mb}m".encode()
        ):
            raise OSError(ctypes.get_errno(), "cannot size the sandbox's I/O directory")
        self.io_mb = mb
