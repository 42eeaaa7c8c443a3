"""The server: one fresh child per run, forked from a process that never holds any data.

Part of the worker script (stdlib only). The server reads `Run` messages, which say how to run
but carry no data: the program, its input and its output are files in the I/O directory that the
sandbox writes and reads itself, and that only the run's child reads. So every run starts from
the server's pristine memory, and a program can find nothing of an earlier program, test or
check in the memory it inherits. With a pid namespace the server is its init: when it exits the
kernel kills whatever is left in it.

For each run: fork a child (`worker/child`), hold its tree to the limits and reap it
(`worker/monitor`), answer how it ended; then, while the sandbox reads the answer, remove what the
run left (`worker/cleanup`), before the next message is read.
"""

from __future__ import annotations

import gc
import os
import select
import time

import child as worker_child
import cleanup
import isolation
import monitor
import wire


class Server:
    """Serves runs on the control pipe until QUIT or end of file."""

    def __init__(self, iso: isolation.Isolation, rfd: int, wfd: int) -> None:
        self.iso = iso
        self.clean = cleanup.Cleanup(iso)
        self.rfd = rfd
        self.wfd = wfd
        self.parent = os.getppid()
        #: what the last run left in the I/O directory (outputs, a compiled cache): removed before
        #: the next run
        self.left: set[str] = set()

    def serve(self) -> int:
        """Serve until the sandbox quits or is gone; the worker's exit status."""
        self.parent = os.getppid()
        worker_child.make_stdio()
        gc.freeze()  # every child shares these objects; none of them is collected there
        trim = getattr(isolation.libc, "malloc_trim", None)
        if trim is not None:  # glibc: freed heap back to the system, fewer pages for each fork
            trim(0)
        wire.write_all(self.wfd, wire.frame(wire.Op.HELLO, dict(self.iso.report)))
        try:
            self.clean.after_run()  # the first run's directory
            while True:
                try:
                    op, body = wire.read_message(self.rfd)
                except EOFError:
                    break
                if op == wire.Op.QUIT:
                    break
                if op != wire.Op.RUN:
                    end = wire.RunEnd(error=f"unknown op {op!r}")
                    wire.write_all(self.wfd, wire.frame(op, end))
                    continue
                req = wire.body_of(wire.Run, body)
                try:
                    self._prepare(req)
                except OSError:
                    break  # the sandbox reads end of file and starts another worker
                try:
                    end = self.run(req)
                except Exception as e:  # a harness fault, never the program's
                    end = wire.RunEnd(error=f"{type(e).__name__}: {e}")
                wire.write_all(self.wfd, wire.frame(op, end))
                # after the answer: the sandbox reads the outputs meanwhile
                self.clean.after_run()
        finally:
            self.clean.sweep()
            self.clean.remove_base()
        return wire.ExitCode.OK

    def _prepare(self, req: wire.Run) -> None:
        """Before a run: hide directories new at /, size the I/O directory, and remove the last
        run's outputs (the sandbox has read them), so a run that dies early leaves none; before
        a program's first run, the last program's compiled forms too."""
        self.iso.cover_new_tops()
        files = wire.Files
        for name in self.left:
            if name in files.OUTPUTS or (req.first and name in files.COMPILED):
                try:
                    os.unlink(os.path.join(self.iso.iodir, name))
                except FileNotFoundError:
                    pass
        self.iso.size_io(req.io_mb)  # after the removals: a smaller size must fit what is left
        # Empty the interpreter's free lists (a full collection does) while no child shares our
        # pages: the child's own final collection would otherwise free those objects, writing
        # to dozens of shared pages that the kernel must then copy for it.
        gc.collect()

    def run(self, req: wire.Run) -> wire.RunEnd:
        """One run in a fresh child; its inputs are removed once it has ended."""
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            worker_child.run(self.iso, req)
        try:
            end = monitor.watch(pid, req.limits, t0, self._abandoned, self.clean.sweep)
        finally:
            self.left = set(os.listdir(self.iso.iodir))
            for name in wire.Files.INPUTS:
                if name in self.left:
                    os.unlink(os.path.join(self.iso.iodir, name))
        return monitor.run_end(end, self.iso.iodir, self.left)

    def _abandoned(self) -> bool:
        """Our parent died, or the sandbox did (its end of the control pipe closed) or gave up on
        this run (it only writes between runs)."""
        return os.getppid() != self.parent or bool(select.select([self.rfd], [], [], 0)[0])
