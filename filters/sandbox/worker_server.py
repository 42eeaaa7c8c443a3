"""The server: it only starts sessions, so it never holds a program, an input or an output.

Part of the worker script (stdlib only). Each program is judged in a session (`worker_session`),
a process forked from this pristine server that compiles the program and forks one child per
test, then exits. With a pid namespace the session is its init (pid 1, with its own /proc): its
programs see no process but their own tree (no other command line), and when it exits the
kernel kills whatever is left in it. An intermediate process enters the namespaces, since a
process can only put its children in a new pid namespace.
"""

from __future__ import annotations

import gc
import os

import wire
import worker_isolation as isolation
import worker_session as session


class Server:
    """Reads START, forks a session that serves until END, reaps it; QUIT or end of file stops it."""

    def __init__(self, iso: isolation.Isolation, rfd: int, wfd: int) -> None:
        self.iso = iso
        self.rfd = rfd
        self.wfd = wfd

    def serve(self) -> int:
        gc.freeze()  # every session and child shares these objects; none of them is collected there
        wire.write_all(self.wfd, wire.frame(wire.Op.HELLO, dict(self.iso.report)))
        while True:
            try:
                op, body = wire.read_message(self.rfd)
            except EOFError:
                break
            if op == wire.Op.QUIT:
                break
            if op == wire.Op.START:
                # No answer (the sandbox sends PROG right behind it): a failure to prepare stops
                # the worker, and the sandbox, reading end of file, starts another one.
                try:
                    self._prepare(body)
                except OSError:
                    break
                if not self.session():
                    break
            else:
                ans = wire.Answer(wire.Status.SE, error=f"{op!r} outside a session")
                wire.write_all(self.wfd, wire.frame(op, ans))
        self.iso.remove_base()
        return wire.ExitCode.OK

    def _prepare(self, body: dict) -> None:
        """Before a session: hide directories new at / and size the I/O tmpfs for its runs."""
        self.iso.cover_new_tops()
        self.iso.size_io(int(body.get("io_mb", 2)))

    def session(self) -> bool:
        """Serve one session in a child; False when the server must stop (quit, or a crash)."""
        pid = os.fork()
        if pid == 0:
            code = wire.ExitCode.CHILD_FAILED
            try:
                serve = session.Session(self.iso, self.rfd, self.wfd).serve
                code = self.iso.in_own_pid_ns(serve) if self.iso.report["pidns"] else serve()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        self.iso.sweep()  # anything the session left running was reparented to us
        return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
