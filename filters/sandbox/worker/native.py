"""Native programs (C++) in a run's child: compile one as the run's user, or execute its binary.

Part of the worker script (stdlib only). A program is compiled once, by a run of its own (its
`compiler` set) under the compile's limits, which the server holds the compiler's whole process
tree to like any run's. The compiler runs as the run's unprivileged uid, in the run directory,
reading the source on stdin (a descriptor the child opened as root) and writing its messages to
the run's stderr file; the child, still root, then moves the executable into the I/O directory,
where no program can reach it, and notes its static memory (the ELF's loadable segments) in the
run's record. A compile failure is noted as the program's (`ce`). A test's run opens that
executable as root and executes it through the descriptor after dropping its privileges, with
the same files, limits and uid as a Python program's run.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import struct
from typing import Any

import isolation
import wire

#: the most of the compiler's messages kept in a note
TAIL = 2000
#: the executable's name in the run directory, where the compiler writes it
OUTPUT = "prog"
#: the environment of a compiler or a native program: nothing of the worker's
ENV_KEYS = ("PATH", "LANG", "LC_ALL", "HOME", "TMPDIR")


#: signals the interpreter ignores (CPython: SIGPIPE and SIGXFSZ), which an executed program would
#: go on ignoring: a program past its output limit must die of SIGXFSZ, not loop on failed writes
_IGNORED_BY_PYTHON = (signal.SIGPIPE, signal.SIGXFSZ)


def _exec(target: int | str, argv: list[str]) -> None:
    """Execute with the signals a fresh process has, and an environment of our own."""
    for sig in _IGNORED_BY_PYTHON:
        signal.signal(sig, signal.SIG_DFL)
    os.execve(target, argv, _env())


def _env() -> dict[str, str]:
    return {k: os.environ[k] for k in ENV_KEYS if k in os.environ}


def _path(iso: isolation.Isolation, name: str) -> str:
    return os.path.join(iso.iodir, name)


def _write(path: str, data: bytes, mode: int = 0o600) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        wire.write_all(fd, data)
    finally:
        os.close(fd)


def drop_privileges(iso: isolation.Isolation, lim: wire.RunLimits) -> None:
    """The run's rlimits, then the run's uid (under root): what a Python run's child does too."""
    setr = resource.setrlimit
    setr(resource.RLIMIT_CPU, (lim.rlimit_cpu_s, lim.rlimit_cpu_s + 1))
    setr(resource.RLIMIT_AS, (lim.address_bytes, lim.address_bytes))
    setr(resource.RLIMIT_FSIZE, (lim.output_bytes, lim.output_bytes))
    setr(resource.RLIMIT_NOFILE, (lim.nofile, lim.nofile))
    if iso.root:
        setr(resource.RLIMIT_NPROC, (lim.nproc, lim.nproc))
        os.setgroups([])
        os.setresgid(iso.uid, iso.uid, iso.uid)
        os.setresuid(iso.uid, iso.uid, iso.uid)
    if not iso.report["pidns"]:  # (in a pid namespace the server's death ends every process)
        isolation.libc.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def static_bytes(fd: int) -> int:
    """Memory the executable's loadable segments take (code, data and zeroed arrays): what it
    holds before it runs a line. 0 when it is not a 64-bit ELF file."""
    head = os.pread(fd, 64, 0)
    if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2:
        return 0
    end = "<" if head[5] == 1 else ">"
    phoff, phentsize, phnum = (
        struct.unpack_from(end + "Q", head, 32)[0],
        *struct.unpack_from(end + "HH", head, 54),
    )
    if phentsize < 48 or phnum > 4096:  # not what a linker writes: no table to trust
        return 0
    table = os.pread(fd, phentsize * phnum, phoff)
    if len(table) < phentsize * phnum:
        return 0
    total = 0
    for i in range(phnum):
        p_type = struct.unpack_from(end + "I", table, i * phentsize)[0]
        if p_type == 1:  # PT_LOAD
            total += struct.unpack_from(end + "Q", table, i * phentsize + 40)[0]  # p_memsz
    return total


def compile_program(iso: isolation.Isolation, req: wire.Run) -> int:
    """Compile the source in the I/O directory into Files.BINARY; the child's exit status
    (0, or NOTED with the compiler's messages as the program's compile error)."""
    assert req.compiler
    files = wire.Files
    os.setsid()
    src = os.open(_path(iso, files.CODE), os.O_RDONLY)
    out = os.open(_path(iso, files.STDOUT), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(_path(iso, files.STDERR), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.chdir(iso.rundir)
    # held from before the compiler runs: whatever its uid later does to the directory's name,
    # the executable is taken from this directory, never through a link
    rundir = os.open(iso.rundir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    argv = [*req.compiler, "-o", OUTPUT]
    pid = os.fork()
    if pid == 0:
        try:
            for i, fd in enumerate((src, out, err)):
                os.dup2(fd, i)
            os.closerange(3, 1 << 20)  # (the run directory's descriptor too)
            drop_privileges(iso, req.limits)
            _exec(argv[0], argv)
        finally:
            os._exit(127)
    for fd in (src, out, err):
        os.close(fd)
    try:
        return _collect(iso, req, rundir, os.waitpid(pid, 0)[1])
    finally:
        os.close(rundir)


def _collect(iso: isolation.Isolation, req: wire.Run, rundir: int, status: int) -> int:
    """After the compiler: its executable into the I/O directory, or the compile error noted."""
    files = wire.Files
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        why = "its output limit" if sig == signal.SIGXFSZ else f"signal {signal.Signals(sig).name}"
        return _compile_error(iso, f"the compiler was stopped by {why}")
    if os.WEXITSTATUS(status) != 0:
        return _compile_error(iso, None)
    # the compiler's uid wrote it: never follow a link it may have left instead
    try:
        fd = os.open(OUTPUT, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=rundir)
    except OSError:
        return _compile_error(iso, "the compiler wrote no executable")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > req.limits.output_bytes:
            return _compile_error(iso, "the compiler wrote no executable")
        target = _path(iso, files.BINARY)
        dst = os.open(target + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o755)
        try:
            left = st.st_size
            while left > 0:
                n = os.sendfile(dst, fd, None, left)
                if n <= 0:
                    break
                left -= n
            os.fchmod(dst, 0o755)  # executable by the run's uid, through a descriptor only
        finally:
            os.close(dst)
        os.replace(target + ".tmp", target)
        record: dict[str, Any] = {"static_bytes": static_bytes(fd), "binary_bytes": st.st_size}
    finally:
        os.close(fd)
    _write(_path(iso, files.RECORD), json.dumps(record).encode())
    return 0


def _compile_error(iso: isolation.Isolation, why: str | None) -> int:
    """Note the compiler's messages (their tail) as the program's compile error."""
    try:
        fd = os.open(_path(iso, wire.Files.STDERR), os.O_RDONLY)
        try:
            size = os.fstat(fd).st_size
            text = os.pread(fd, TAIL, max(0, size - TAIL)).decode("utf-8", "replace")
        finally:
            os.close(fd)
    except OSError:
        text = ""
    if why:
        text = f"{text}\n{why}".strip()
    _write(_path(iso, wire.Files.NOTE), json.dumps({"ce": text or "compile error"}).encode())
    return wire.ExitCode.NOTED


def open_binary(iso: isolation.Isolation) -> int:
    """The program's executable, opened while still root (its directory is root's alone)."""
    return os.open(_path(iso, wire.Files.BINARY), os.O_RDONLY | os.O_CLOEXEC)


#: how a testlib checker is called, in the run directory (`open_checker`)
CHECKER_ARGV = ["checker", "input.txt", "output.txt", "answer.txt"]


def open_checker(iso: isolation.Isolation) -> int:
    """A native checker's run, while still root: its three files copied from the I/O directory
    into the run directory, root's and read-only (the checker reads them by name, as testlib
    does, and can change none), and its executable opened (held as a native program's is)."""
    files = wire.Files
    for name, target in zip(
        (files.CHECK_INPUT, files.CHECK_OUTPUT, files.CHECK_ANSWER), CHECKER_ARGV[1:]
    ):
        src = os.open(_path(iso, name), os.O_RDONLY)
        try:
            path = os.path.join(iso.rundir, target)
            dst = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o444)
            try:
                left = os.fstat(src).st_size
                while left > 0:
                    n = os.sendfile(dst, src, None, left)
                    if n <= 0:
                        break
                    left -= n
                os.fchmod(dst, 0o444)
            finally:
                os.close(dst)
        finally:
            os.close(src)
    return os.open(_path(iso, files.CHECKER), os.O_RDONLY | os.O_CLOEXEC)


def execute(fd: int, argv: list[str] | None = None) -> int:
    """Replace this (confined, unprivileged) child with the program (a checker: with `argv`);
    returns only when the kernel refuses it, with the status of a program that could not start."""
    try:
        _exec(fd, argv or ["solution"])
    except OSError as e:
        try:
            os.write(2, f"cannot execute the program: {e}\n".encode())
        except OSError:
            pass
    return 127
