"""A session: one program judged in a process of its own, which exits when the program is judged.

Part of the worker script (stdlib only). The server forks a session for each program; it reads
the sandbox's messages until END: it compiles the program once (PROG) and forks one confined
child per test (TEST) or check (CHECK), answering each with how the run ended. Whatever it held
(the code, the inputs, the outputs, a checker's expected answers) dies with it, so no later
program can find it in the memory it inherits from the server. After every run it kills and
reaps what the run left, and clears what outlives processes (files, SysV objects, keys), before
it answers.
"""

from __future__ import annotations

import gc
import os
import select
import time
import traceback

import wire
import worker_child
import worker_isolation as isolation
import worker_monitor as monitor


class Session:
    """Serves one session on the control pipe; `serve` returns the session's exit status."""

    def __init__(self, iso: isolation.Isolation, rfd: int, wfd: int) -> None:
        self.iso = iso
        self.rfd = rfd
        self.wfd = wfd
        self.parent = 0  # the server, seen from where the session serves (see serve)
        self.prog: worker_child.Compiled | None = None
        self.paths = {n: os.path.join(iso.iodir, n) for n in ("in", "out", "err", "res")}

    def serve(self) -> int:
        # not inherited across fork: orphans of its runs are reparented to it
        isolation.libc.prctl(isolation.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        self.parent = os.getppid()  # 0 as the init of a pid namespace: the server is outside it
        while True:
            try:
                op, body = wire.read_message(self.rfd)
            except EOFError:
                return wire.ExitCode.STOPPED
            if op == wire.Op.END:  # no answer: the next session's first answer shows this one ended
                return wire.ExitCode.OK
            if op == wire.Op.QUIT:
                return wire.ExitCode.STOPPED
            try:
                if op == wire.Op.PROG:
                    ans = self.load(wire.body_of(wire.Program, body))
                elif op == wire.Op.TEST:
                    ans = self.run(wire.body_of(wire.TestRun, body))
                elif op == wire.Op.CHECK:
                    ans = self.run(wire.body_of(wire.CheckRun, body))
                else:
                    ans = wire.Answer(wire.Status.SE, error=f"unknown op {op!r}")
            except Exception as e:  # a harness fault, never the program's
                ans = wire.Answer(wire.Status.SE, error=f"{type(e).__name__}: {e}")
            wire.write_all(self.wfd, wire.frame(op, ans))  # answered under the request's name

    def load(self, p: wire.Program) -> wire.Answer:
        """Compile the program (and an assert suite) once; CE when the program does not compile."""
        self.prog = None
        try:
            code = compile(p.code, "solution.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as e:
            return wire.Answer(
                wire.Status.CE,
                error="".join(traceback.format_exception_only(type(e), e))[-worker_child.TAIL :],
            )
        test = None
        if p.test_code:
            try:
                test = compile(p.test_code, "test.py", "exec", dont_inherit=True)
            except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as e:
                return wire.Answer(wire.Status.SE, error=f"test code does not compile: {e}")
        self.prog = worker_child.Compiled(code, p.kind, p.entry, test, p.call_check, p.typed)
        gc.collect()
        gc.freeze()  # the children's final collection then skips all of this
        return wire.Answer(wire.Status.OK)

    def run(self, task: wire.TestRun | wire.CheckRun) -> wire.Answer:
        """One confined child: the program on one test, or a checker."""
        is_test = isinstance(task, wire.TestRun)
        if is_test and self.prog is None:
            return wire.Answer(wire.Status.SE, error="a test before its program")
        iso = self.iso
        iso.clean_scratch()
        os.mkdir(iso.rundir, 0o700)
        if iso.root:
            os.chown(iso.rundir, iso.uid, iso.uid)
        stdio = is_test and self.prog is not None and self.prog.kind == "stdio"
        data = task.input if stdio else ""
        fd = os.open(self.paths["in"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            wire.write_all(fd, data.encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            worker_child.run(iso, self.paths, task.limits, (self.prog, task) if is_test else task)
        end = monitor.watch(pid, task.limits, t0, self._abandoned, self._cleanup)
        return monitor.answer(end, task.limits, self.paths, want_stdout=stdio)

    def _abandoned(self) -> bool:
        """Our server died, or the sandbox did (its end of the control pipe closed) or gave up on
        this run (it only writes between runs)."""
        return os.getppid() != self.parent or bool(select.select([self.rfd], [], [], 0)[0])

    def _cleanup(self) -> None:
        self.iso.sweep()
        self.iso.after_run()
