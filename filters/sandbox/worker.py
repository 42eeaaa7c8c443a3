"""The fork server: a small, pre-started process that forks one clean, confined child per test.

Run as a script (`python -s -B worker.py UID`), stdlib only, so that it stays small and forks in
about a millisecond. It reads length-prefixed pickled requests on fd 0 and answers on fd 1:

- ("session", {"io_mb"}): fork a session (below), which answers what follows until ("end", None)
  and exits. Neither gets an answer, so a session costs no round trip.
- ("iso", None): the isolation actually in force.

In a session:
- ("prog", {"code", "test_code", "kind", "entry"}): compile the program once -> {"ok"} or {"ce"}.
- ("test", {"input", "limits"}): fork a child that runs the compiled program on one test.
- ("check", {"checker", "input", "expected", "actual", "limits"}): run a checker, confined too.

When started as root the worker enters its own network, IPC and mount namespaces (private /tmp,
/var/tmp, /dev/shm, /run/lock) and a fresh session keyring, becomes a child subreaper, and runs
each child as a dedicated unprivileged uid; after every test it kills every process of that uid,
removes its SysV IPC objects and clears its keyrings, so nothing outlives a test. The time and
memory limits bind the whole process tree of a test, not each process alone.
In its mount namespace only the system directories (`SYSTEM_DIRS`) and the interpreter's own
library stay visible: every other top-level directory (/home, /opt, /srv, /run, a project or data
directory) is covered by an empty tmpfs, so a program cannot read the dataset it is graded on nor
reach a unix socket on the host.
"""

from __future__ import annotations

# Imports marked F401 preload modules that solutions commonly use: loaded once here, shared
# copy-on-write by every child.
import atexit
import bisect  # noqa: F401
import builtins
import collections  # noqa: F401
import ctypes
import datetime  # noqa: F401
import functools  # noqa: F401
import gc
import heapq  # noqa: F401
import io
import itertools  # noqa: F401
import json
import math  # noqa: F401
import operator  # noqa: F401
import os
import pickle
import re  # noqa: F401
import resource
import select
import shutil
import signal
import string  # noqa: F401
import struct
import sys
import time
import traceback
import types
import typing  # noqa: F401

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
MS_NOEXEC = 8
IPC_RMID = 0
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = (
    1,
    2,
    4,
    32,
    4096,
    16384,
    1 << 18,
)
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
#: Private, empty tmpfs per worker, and the most a program may write there (MB). tmpfs is memory
#: that RLIMIT_AS does not count, so these bound what a run can hold beyond its memory limit.
#: The captured stdout and stderr live apart, on a tmpfs sized by the run's output limit.
PRIVATE_DIRS = {"/tmp": 256, "/var/tmp": 16, "/dev/shm": 64, "/run/lock": 1}
#: Top-level directories a program may see (the private ones above are emptied); all others are
#: covered, and only the interpreter's library is bound back into them, read-only.
SYSTEM_DIRS = frozenset(
    {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "dev", "proc", "sys", "tmp", "var"}
)
TAIL = 2000
PAGE = os.sysconf("SC_PAGE_SIZE")

_libc = ctypes.CDLL(None, use_errno=True)

#: keyctl(2) has no libc wrapper: its syscall number, where known
_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR = 1, 7
KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -4, -5


def _keyctl(op: int, arg) -> int:
    return _libc.syscall(_KEYCTL, op, arg) if _KEYCTL else -1


# Typed plain data for `typed_calls` problems (valuecodec.py, stdlib only): loaded from its file so
# that the worker stays a self-contained script, with its own copy of the builtins so that a
# program that rebinds `len` or `isinstance` does not change how its result is written.
_CODEC: dict = {"__name__": "valuecodec", "__builtins__": dict(builtins.__dict__)}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "valuecodec.py")) as _f:
    exec(compile(_f.read(), "valuecodec.py", "exec"), _CODEC)


def _cover(path: str) -> bool:
    """An empty, root-owned tmpfs over `path` in our mount namespace: the child sees nothing there."""
    return _libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755,size=1m") == 0


def _scheduled_s(pid: int) -> float:
    """Seconds the process has been running or runnable (on a CPU or in a run queue)."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as f:
            run_ns, wait_ns = f.read().split()[:2]
        return (int(run_ns) + int(wait_ns)) / 1e9
    except (OSError, ValueError):
        return 0.0


def _tree_usage(pid: int) -> tuple[int, int]:
    """(CPU clock ticks, resident pages) of the run now: the child, every descendant alive, and
    what each has reaped; orphans (reparented to us, the subreaper) are found among our children.
    Memory is the child's resident size plus what each other process holds privately.

    RLIMIT_AS and RLIMIT_CPU bind each process alone: without the sum, helpers a program forks
    could hold many times the memory limit, or compute past the time limit, between two checks.
    """
    me = os.getpid()
    stack, seen = [pid, *(c for c in _children(me) if c != pid)], set()
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
            rss += int(fields[21]) if p == pid else _private_pages(p, int(fields[21]))
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        stack.extend(_children(p))
    return cpu, rss


def _private_pages(pid: int, rss: int) -> int:
    """Pages only this process holds: a forked helper shares the rest with its parent, so its
    resident size would count the interpreter twice (falls back to that where the kernel cannot
    tell)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            kb = sum(int(line.split()[1]) for line in f if line.startswith(b"Private_"))
        return kb * 1024 // PAGE
    except (OSError, IndexError, ValueError):
        return rss


def _children(pid: int) -> list[int]:
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


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


class Worker:
    def __init__(self, uid: int) -> None:
        self.rfd = os.dup(0)
        self.wfd = os.dup(1)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        self.root = os.geteuid() == 0
        self.uid = uid if self.root else os.getuid()
        self.iso: dict = {
            "root": self.root,
            "user": False,
            "netns": False,
            "ipcns": False,
            "keyrings": False,
            "mountns": False,
            "private_tmp": False,
            "host_hidden": False,
            "pidns": False,
            "subreaper": False,
            "no_new_privs": True,
            "kill": "every descendant (subreaper)",
            "uid": self.uid,
        }
        # Not PR_SET_PDEATHSIG: it fires when the *thread* that started us exits, and sandboxes
        # start workers from short-lived threads. The parent's death closes our control pipe
        # (EOF while idle) and changes our parent pid (checked while a test runs).
        self.ppid = os.getppid()
        if self.root:
            self.iso["user"] = True
            self.iso["kill"] = "every process of the run's uid, then every descendant (subreaper)"
            self.iso["netns"] = _libc.unshare(CLONE_NEWNET) == 0
            # SysV shared memory, semaphores and message queues outlive their process: in our own
            # IPC namespace, emptied after every test, they neither leak into the host's memory
            # nor carry one program's data to the next
            self.iso["ipcns"] = _libc.unshare(CLONE_NEWIPC) == 0
            # The kernel keyrings: a fresh, empty session keyring here (the one we inherited may
            # hold the trainer's keys), another in every child, and the run user's own keyrings
            # cleared after every test (they outlive its processes)
            self.iso["keyrings"] = _keyctl(KEYCTL_JOIN_SESSION_KEYRING, None) >= 0
            if (
                _libc.unshare(CLONE_NEWNS) == 0
                and _libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) == 0
            ):
                self.iso["mountns"] = True
                runtime = self._runtime_paths()
                self.iso["private_tmp"] = self._private_dirs(runtime)
                self.iso["scratch_mb"] = dict(PRIVATE_DIRS) if self.iso["private_tmp"] else None
                self.iso["host_hidden"] = self._expose_runtime(runtime)
        self.iso["subreaper"] = _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        self.iso["pidns"] = self.iso["mountns"] and self._pid_ns_works()
        if self.iso["private_tmp"]:
            self.base = "/tmp"
        else:
            import tempfile

            self.base = tempfile.mkdtemp(prefix="codemix-sb-")
        self.iodir = os.path.join(self.base, ".cmio")
        os.makedirs(self.iodir, mode=0o700, exist_ok=True)
        self.rundir = os.path.join(self.base, "run")
        self.prog = None
        self.test = None
        self.kind = "stdio"
        self.entry = None
        self.env = dict(os.environ)

    @staticmethod
    def _runtime_paths() -> list[str]:
        """The directories the interpreter loads code from (prefixes and sys.path), minimal set."""
        needed: list[str] = []
        for p in [sys.base_prefix, sys.prefix, *sys.path]:
            p = os.path.realpath(p) if p else ""
            if p and os.path.isdir(p) and not any(p == n or p.startswith(n + "/") for n in needed):
                needed = [n for n in needed if not n.startswith(p + "/")] + [p]
        return needed

    def _private_dirs(self, runtime: list[str]) -> bool:
        """An empty tmpfs over /tmp, /var/tmp, /dev/shm and /run/lock in this mount namespace.

        Runtime directories that live inside one of them (a virtual environment under /tmp, as in
        a CI clone) are bound back read-only, through a descriptor opened before the cover, and
        `cleanup` leaves their top-level entry alone.
        """
        ok = True
        self.keep: dict[str, set[str]] = {d: set() for d in PRIVATE_DIRS}
        for d in PRIVATE_DIRS:
            if not os.path.isdir(d):
                continue
            inside = [p for p in runtime if p.startswith(d + "/")]
            held = [(p, os.open(p, os.O_PATH | os.O_DIRECTORY)) for p in inside]
            opts = f"mode=1777,size={PRIVATE_DIRS[d]}m".encode()
            ok &= _libc.mount(b"tmpfs", d.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, opts) == 0
            for p, fd in held:
                os.makedirs(p, 0o755, exist_ok=True)
                ok &= _libc.mount(f"/proc/self/fd/{fd}".encode(), p.encode(), None, MS_BIND | MS_REC, None) == 0
                _libc.mount(None, p.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)
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
        self.stage_root = "/dev/shm/.cmstage" if os.path.isdir("/dev/shm") else "/tmp/.cmstage"
        os.makedirs(self.stage_root, 0o700, exist_ok=True)
        for anc, paths in blocked.items():
            stages = []
            for p in paths:
                stage = os.path.join(self.stage_root, str(len(os.listdir(self.stage_root))))
                os.mkdir(stage, 0o700)
                ok &= _libc.mount(p.encode(), stage.encode(), None, MS_BIND | MS_REC, None) == 0
                stages.append((stage, p))
            ok &= _cover(anc)
            for stage, p in stages:
                os.makedirs(p, 0o755, exist_ok=True)
                ok &= _libc.mount(stage.encode(), p.encode(), None, MS_BIND | MS_REC, None) == 0
                _libc.mount(None, p.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)
                _libc.umount2(stage.encode(), MNT_DETACH)
                os.rmdir(stage)
        os.rmdir(self.stage_root)
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
                _libc.mount(b"/dev/null", top.encode(), None, MS_BIND, None)
        return tops

    def _cover_new_tops(self) -> None:
        """Cover what appeared at / since the last test (a data directory made after start-up)."""
        now = set(os.listdir("/"))
        new = now - self.tops_seen
        self.tops_seen = now
        for top in self._host_tops(new, []):
            if not _cover(top) and os.path.isdir(top):  # gone meanwhile: nothing to hide
                raise OSError(ctypes.get_errno(), f"cannot cover {top} from the program")

    def _size_io(self, mb: int) -> None:
        """The I/O directory is its own tmpfs, out of the program's reach: room for a run's input
        and its captured stdout and stderr (each up to the output limit; the sandbox says how many
        MB), whatever the program wrote to /tmp. Mounted once, resized when that room changes."""
        if mb == getattr(self, "io_mb", None):
            return
        flags = MS_NOSUID | MS_NODEV | (MS_REMOUNT if hasattr(self, "io_mb") else 0)
        if _libc.mount(b"tmpfs", self.iodir.encode(), b"tmpfs", flags, f"mode=0700,size={mb}m".encode()):
            raise OSError(ctypes.get_errno(), "cannot size the sandbox's I/O directory")
        self.io_mb = mb

    # ---- protocol -------------------------------------------------------------------------
    def _read_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = os.read(self.rfd, n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return bytes(buf)

    def recv(self):
        (n,) = struct.unpack("<Q", self._read_exact(8))
        return pickle.loads(self._read_exact(n))

    def send(self, obj) -> None:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(struct.pack("<Q", len(data)) + data)
        while view:
            k = os.write(self.wfd, view)
            view = view[k:]

    def serve(self) -> None:
        """The server: it only starts sessions, so it never holds a program, an input or an output.

        Each program is judged in a session, a process forked from this pristine server that
        compiles the program and forks one child per test, then exits. Whatever a session saw
        (the code, the inputs, the outputs, a checker's expected answers) dies with it, so no
        later program can find it in the memory it inherits.
        """
        gc.freeze()
        self.send(("hello", self.iso))
        while True:
            try:
                op, arg = self.recv()
            except EOFError:
                break
            if op == "quit":
                break
            if op == "session":
                # No answer (the sandbox sends "prog" right behind it): a failure to prepare
                # stops the worker, and the sandbox, reading end-of-file, starts another one.
                try:
                    self._prepare(arg)
                except OSError:
                    break
                if not self.session():
                    break
            elif op == "iso":
                self.send(dict(self.iso))
            else:
                self.send({"status": "SE", "error": f"{op!r} outside a session"})
        self.cleanup()
        if not self.iso["private_tmp"]:
            shutil.rmtree(self.base, ignore_errors=True)

    def _prepare(self, arg: dict) -> None:
        """Before a session: hide directories new at / and size the I/O tmpfs for its runs."""
        if self.iso.get("host_hidden"):
            self._cover_new_tops()
        if self.iso["private_tmp"]:
            self._size_io(int(arg.get("io_mb", 2)))

    def session(self) -> bool:
        """Serve one session in a child; False when the server must stop (quit, or a crash).

        With a pid namespace the session is its init (pid 1, with its own /proc): its programs
        see no process but their own tree (no other command line), and when it exits the
        kernel kills whatever is left in it. An intermediate process enters the namespace, since
        a process can only put its children there.
        """
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                if self.iso["pidns"]:
                    code = self._in_own_pid_ns(self.serve_session)
                else:
                    code = self.serve_session()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        self.sweep(pid)  # anything the session left running was reparented to us
        return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0

    @staticmethod
    def _in_own_pid_ns(serve) -> int:
        """In a fresh process: enter new pid, mount and IPC namespaces; a child, their init, mounts
        a /proc of its own and runs `serve`; its exit code is returned. The IPC namespace takes
        POSIX message queues (which outlive their process, and which `remove_ipc` cannot list)
        away with the session."""
        if _libc.unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC):
            return 71
        pid = os.fork()
        if pid == 0:
            code = 72
            try:
                if _libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) == 0:
                    code = serve()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 73

    def _pid_ns_works(self) -> bool:
        pid = os.fork()
        if pid == 0:
            os._exit(self._in_own_pid_ns(lambda: 0 if os.getpid() == 1 else 74))
        _, status = os.waitpid(pid, 0)
        return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0

    def serve_session(self) -> int:
        _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # not inherited across fork
        self.ppid = os.getppid()  # the server
        while True:
            try:
                op, arg = self.recv()
            except EOFError:
                return 3
            if op == "end":  # no answer: the next session's first answer shows this one ended
                return 0
            if op == "quit":
                return 3
            try:
                if op == "prog":
                    resp = self.load(arg)
                elif op == "test":
                    resp = self.run_child("test", arg)
                elif op == "check":
                    resp = self.run_child("check", arg)
                else:
                    resp = {"status": "SE", "error": f"unknown op {op!r}"}
            except Exception as e:  # a harness fault, never the program's
                resp = {"status": "SE", "error": f"{type(e).__name__}: {e}"}
            self.send(resp)

    # ---- programs ---------------------------------------------------------------------------
    def load(self, arg: dict) -> dict:
        self.prog = self.test = None
        self.kind = arg["kind"]
        self.entry = arg.get("entry")
        self.call_check = bool(arg.get("call_check"))
        self.typed = bool(arg.get("typed"))
        try:
            self.prog = compile(arg["code"], "solution.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as e:
            return {
                "status": "CE",
                "error": "".join(traceback.format_exception_only(type(e), e))[-TAIL:],
            }
        if arg.get("test_code"):
            try:
                self.test = compile(arg["test_code"], "test.py", "exec", dont_inherit=True)
            except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as e:
                return {"status": "SE", "error": f"test code does not compile: {e}"}
        gc.collect()
        gc.freeze()
        return {"status": "OK"}

    def run_child(self, what: str, arg: dict) -> dict:
        lim = arg["limits"]
        self.cleanup()
        os.mkdir(self.rundir, 0o700)
        if self.root:
            os.chown(self.rundir, self.uid, self.uid)
        paths = {n: os.path.join(self.iodir, n) for n in ("in", "out", "err", "res")}
        data = arg.get("input", "") if (what == "test" and self.kind == "stdio") else ""
        with open(paths["in"], "wb") as f:
            f.write(data.encode("utf-8", "surrogateescape"))
        t0 = time.monotonic()
        tree0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                code = self.child(what, arg, lim, paths)
            finally:
                os._exit(code)
        return self.wait_child(pid, t0, tree0, lim, paths, what)

    def wait_child(
        self, pid: int, t0: float, tree0: resource.struct_rusage, lim: dict, paths: dict, what: str
    ) -> dict:
        killed = None
        try:
            pfd = os.pidfd_open(pid)
        except OSError:
            pfd = None
        tick = os.sysconf("SC_CLK_TCK")
        # The wall ceiling counts time the program spent blocked (sleeping, waiting), not time it
        # was runnable but starved by a loaded machine; a hard cap of 10x still ends everything.
        hard_deadline = t0 + 10 * lim["wall_s"]
        status = rusage = None
        while True:
            timeout = 0.1
            if pfd is not None:
                select.select([pfd], [], [], timeout)
            else:
                time.sleep(min(timeout, 0.005))
            wpid, status, rusage = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                break
            if os.getppid() != self.ppid or select.select([self.rfd], [], [], 0)[0]:
                # our server died, or the sandbox did (its end of the control pipe closed) or gave
                # up on this run (it only writes between runs): stop everything
                os.kill(pid, signal.SIGKILL)
                os.wait4(pid, 0)
                self.sweep(pid)
                os._exit(3)
            now = time.monotonic()
            if now >= hard_deadline or now - t0 - _scheduled_s(pid) >= lim["wall_s"]:
                killed = "wall"
            else:
                cpu_ticks, rss_pages = _tree_usage(pid)
                if cpu_ticks / tick > lim["time_s"]:
                    killed = "cpu"
                elif rss_pages * PAGE > lim["memory_mb"] * 1048576:
                    killed = "mem"  # resident memory past the limit (RLIMIT_AS has headroom)
            if killed:
                os.kill(pid, signal.SIGKILL)
                _, status, rusage = os.wait4(pid, 0)
                break
        wall = time.monotonic() - t0
        if pfd is not None:
            os.close(pfd)
        self.sweep(pid)
        if self.iso.get("ipcns"):
            self.remove_ipc()
        if self.iso.get("keyrings"):
            self._clear_keys()
        # CPU of the whole tree: the child, what it reaped, and every process it left behind
        # (reaped by the sweep: we are their subreaper). A program that hands its work to a
        # process it never waits for still pays for it.
        tree = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = tree.ru_utime + tree.ru_stime - tree0.ru_utime - tree0.ru_stime
        mem_kb = rusage.ru_maxrss
        out_size, err_size, res_size = (_size(paths[n]) for n in ("out", "err", "res"))
        err_tail = ""
        if err_size:
            with open(paths["err"], "rb") as f:
                if err_size > TAIL:
                    f.seek(err_size - TAIL)
                err_tail = f.read().decode("utf-8", "replace")
        resp = {
            "cpu_ms": cpu * 1000.0,
            "wall_ms": wall * 1000.0,
            "peak_mem_kb": mem_kb,
            "stderr": err_tail,
        }
        res = None
        if 0 < res_size < lim["output_bytes"]:
            try:
                with open(paths["res"], "rb") as f:
                    res = json.loads(f.read().decode("utf-8", "replace"))
            except (ValueError, RecursionError):  # a program can write anything there
                res = None
            if not isinstance(res, dict):
                res = None
        resp["res"] = res
        cap = lim["output_bytes"]
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        resp["exit"] = f"signal {signal.Signals(sig).name}" if sig else f"exit {exit_code}"
        exc = res.get("exc") if isinstance(res, dict) else None
        if killed == "mem" or mem_kb > lim["memory_mb"] * 1024:
            st = "MLE"  # a real judge would have stopped it when it crossed the limit
        elif killed or cpu > lim["time_s"]:
            st = "TLE"
        elif max(out_size, err_size, res_size) >= cap or sig == signal.SIGXFSZ:
            st = "OLE"
        elif exc == "MemoryError":
            st = "MLE"
        elif sig == signal.SIGXCPU:
            st = "TLE"
        elif sig is not None or exit_code != 0:
            st = "RE"
        else:
            st = "OK"
        resp["status"] = st
        if what == "test" and self.kind == "stdio" and st == "OK":
            with open(paths["out"], "rb") as f:
                resp["stdout"] = f.read(cap)
        for n in ("out", "err", "res"):  # a child that dies before opening them leaves none behind
            try:
                os.unlink(paths[n])
            except FileNotFoundError:
                pass
        return resp

    def _clear_keys(self) -> None:
        """Empty the run user's keyrings: keys added there would reach its next program."""
        try:
            os.setresuid(self.uid, self.uid, 0)
            _keyctl(KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING)
            _keyctl(KEYCTL_CLEAR, KEY_SPEC_USER_SESSION_KEYRING)
        finally:
            os.setresuid(0, 0, 0)

    def _kill_uid(self) -> None:
        """SIGKILL every process of the run's uid (its whole tree, daemons included)."""
        try:
            os.setresuid(self.uid, self.uid, 0)
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
        finally:
            os.setresuid(0, 0, 0)

    def _kill_children(self) -> None:
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

    def sweep(self, pid: int) -> None:
        """Kill everything the run left behind and reap it.

        As a child subreaper, every living descendant of a finished run is our child, so the run is
        gone exactly when we have no children left.
        """
        deadline = time.monotonic() + 10.0
        while True:
            try:
                while os.waitpid(-1, os.WNOHANG)[0] > 0:
                    pass
            except ChildProcessError:
                return
            if time.monotonic() > deadline:
                return
            if self.root:
                self._kill_uid()
            else:
                self._kill_children()
            time.sleep(0.0002)

    def remove_ipc(self) -> None:
        """Remove every SysV IPC object of our namespace (what the last test created)."""
        for kind in ("shm", "msg", "sem"):
            try:
                with open(f"/proc/sysvipc/{kind}", "rb") as f:
                    ids = [int(line.split()[1]) for line in f.readlines()[1:] if line.strip()]
            except (OSError, IndexError, ValueError):
                continue
            for i in ids:
                if kind == "shm":
                    _libc.shmctl(i, IPC_RMID, None)
                elif kind == "msg":
                    _libc.msgctl(i, IPC_RMID, None)
                else:
                    _libc.semctl(i, 0, IPC_RMID)

    def cleanup(self) -> None:
        """Remove the run directory and, with a private /tmp, everything a run left there."""
        dirs = PRIVATE_DIRS if self.iso["private_tmp"] else (self.base,)
        for d in dirs:
            try:
                names = os.listdir(d)
            except OSError:
                continue
            keep = getattr(self, "keep", {}).get(d, ())
            for n in names:
                if (n == ".cmio" and d == self.base) or n in keep:
                    continue
                p = os.path.join(d, n)
                if os.path.isdir(p) and not os.path.islink(p):
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    try:
                        os.unlink(p)
                    except OSError:
                        pass

    # ---- the child ----------------------------------------------------------------------------
    def child(self, what: str, arg: dict, lim: dict, paths: dict) -> int:
        os.setsid()
        fds = [os.open(paths["in"], os.O_RDONLY)]
        for n in ("out", "err", "res"):
            fds.append(os.open(paths[n], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
        os.closerange(4, 1 << 20)
        os.chdir(self.rundir)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        setr = resource.setrlimit
        setr(resource.RLIMIT_CORE, (0, 0))
        setr(resource.RLIMIT_CPU, (lim["rlimit_cpu_s"], lim["rlimit_cpu_s"] + 1))
        setr(resource.RLIMIT_AS, (lim["address_bytes"], lim["address_bytes"]))
        setr(resource.RLIMIT_FSIZE, (lim["output_bytes"], lim["output_bytes"]))
        setr(resource.RLIMIT_NOFILE, (lim["nofile"], lim["nofile"]))
        _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if self.root:
            setr(resource.RLIMIT_NPROC, (lim["nproc"], lim["nproc"]))
            os.setgroups([])
            os.setresgid(self.uid, self.uid, self.uid)
            os.setresuid(self.uid, self.uid, self.uid)
            if self.iso["keyrings"]:
                _keyctl(KEYCTL_JOIN_SESSION_KEYRING, None)  # not the worker's: a fresh, empty one
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # cleared by setresuid, so set after
        os.environ["HOME"] = self.rundir
        os.environ["TMPDIR"] = self.rundir
        stdin = io.TextIOWrapper(
            io.BufferedReader(io.FileIO(0, "r", closefd=False)),
            encoding="utf-8",
            errors="strict",
            newline="\n",
        )
        stdout = io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
            encoding="utf-8",
            errors="strict",
            newline="\n",
        )
        stderr = io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
            encoding="utf-8",
            errors="backslashreplace",
            newline="\n",
            line_buffering=True,
        )
        stdin.mode, stdout.mode, stderr.mode = "r", "w", "w"
        sys.stdin = sys.__stdin__ = stdin
        sys.stdout = sys.__stdout__ = stdout
        sys.stderr = sys.__stderr__ = stderr
        sys.argv = ["solution.py"]
        # `random` is not preloaded, so a program that imports it seeds it afresh from urandom.
        if what == "check":
            return self.run_checker(arg)
        return self.run_program(arg)

    def _finish(self, code: int, record: dict | None, ns: dict | None) -> int:
        """Shut down like an interpreter: join threads, run atexit, collect, flush; then report."""
        threading = sys.modules.get("threading")  # not preloaded: importing it doubles fork cost
        if threading is not None:
            try:
                threading._shutdown()  # type: ignore[attr-defined]
            except BaseException:
                pass
        try:
            atexit._run_exitfuncs()
        except BaseException:
            pass
        for s in (sys.stdout, sys.stderr):  # flushed before __main__ is torn down, as CPython does
            try:
                s.flush()
            except BaseException:
                code = code or 120
        if ns is not None:
            try:
                ns.clear()
                gc.collect()
                sys.stdout.flush()
                sys.stderr.flush()
            except BaseException:
                pass
        if record is not None:
            try:
                data = json.dumps(record).encode()
                view = memoryview(data)
                while view:
                    view = view[os.write(3, view) :]
            except BaseException:
                pass
        return code

    def _resolve(self, ns: dict):
        entry = (self.entry or "").strip()
        if "()." in entry:
            cls, meth = entry.split("().", 1)
            return getattr(ns[cls.strip()](), meth.strip())
        return eval(entry, ns)

    def run_program(self, arg: dict) -> int:
        mod = types.ModuleType("__main__")
        mod.__dict__["__builtins__"] = builtins
        mod.__file__ = "solution.py"
        sys.modules["__main__"] = mod
        ns = mod.__dict__
        record: dict = {}
        code = 0
        typed_args = None
        if self.kind == "call" and self.typed:  # {"args", "kwargs"}, values typed (valuecodec)
            call = json.loads(arg["input"])  # before the program runs: it cannot alter this
            typed_args = (
                [_CODEC["decode"](a) for a in call["args"]],
                {k: _CODEC["decode"](v) for k, v in call["kwargs"].items()},
            )
        try:
            exec(self.prog, ns)
            if self.kind == "call":
                fn = self._resolve(ns)
                if typed_args is not None:
                    value = fn(*typed_args[0], **typed_args[1])
                    try:
                        record["result"] = _CODEC["dumps"](value)
                    except (TypeError, ValueError) as e:
                        record["unserializable"] = f"{type(value).__name__}: {e}"[:200]
                else:
                    args = json.loads(arg["input"])
                    value = fn(*args) if isinstance(args, list) else fn(args)
                    try:
                        record["result"] = json.dumps(value, allow_nan=True)
                    except (TypeError, ValueError) as e:
                        record["unserializable"] = f"{type(value).__name__}: {e}"[:200]
            elif self.kind == "assert":
                results: dict = {}

                def __cm_record(idx: int, outcome) -> None:
                    if idx in results and results[idx] != "AC":
                        return
                    if outcome is True:
                        results[idx] = "AC"
                    elif outcome is False:
                        results[idx] = "WA"
                    elif isinstance(outcome, MemoryError):
                        results[idx] = "MLE"
                    else:
                        results[idx] = "RE"
                        if "first_error" not in record:
                            record["first_error"] = "".join(
                                traceback.format_exception_only(type(outcome), outcome)
                            )[-TAIL:]

                record["asserts"] = results
                ns["__cm_record"] = __cm_record
                if self.test is not None:
                    exec(self.test, ns)
                    if self.call_check and callable(ns.get("check")) and self.entry:
                        ns["check"](self._resolve(ns))
                record["done"] = True
        except SystemExit as e:
            c = e.code
            if c is None or c == 0:
                code = 0
            elif isinstance(c, int):
                code = c & 0xFF or 1
            else:
                print(c, file=sys.stderr)
                code = 1
            if code != 0:
                record["exc"] = "SystemExit"
        except BaseException as e:
            record["exc"] = type(e).__name__
            try:  # the traceback a fresh interpreter would print: without the harness's frame
                traceback.print_exception(
                    type(e), e, e.__traceback__.tb_next if e.__traceback__ else None
                )
            except BaseException:
                pass
            code = 1
        return self._finish(code, record, ns)

    def run_checker(self, arg: dict) -> int:
        ns: dict = {"__name__": "__checker__", "__builtins__": builtins}
        record: dict = {}
        code = 0
        try:
            exec(compile(arg["checker"], "checker.py", "exec"), ns)
            record["ok"] = bool(ns["check"](arg["input"], arg["expected"], arg["actual"]))
        except BaseException as e:
            record["exc"] = type(e).__name__
            record["error"] = "".join(traceback.format_exception_only(type(e), e))[-TAIL:]
            code = 1
        return self._finish(code, record, None)


def main() -> None:
    Worker(int(sys.argv[1])).serve()


if __name__ == "__main__":
    main()
