"""Batches of calls (`Sandbox.run(batch=True)`, trusted programs only): a call problem's tests run
`CALL_BATCH` at a time in one child, the program once, each call under its own CPU budget.
docs/sandbox.md, "Batches of calls"."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from filters.sandbox.limits import Limits
from filters.sandbox.outcome import Outcome, Status
from filters.sandbox.worker.wire import Run, RunLimits, answer_timeout

__all__ = ["CALL_BATCH", "Batches"]

#: Calls of a batch run in one child (`Sandbox.run(batch=True)`): a run that stops at its first
#: failure wastes at most this many calls past it.
CALL_BATCH = 16


class Batches:
    """The outcomes of a batched call run's tests (see `Sandbox.run`'s `batch`), batch by batch as
    they are asked for: a mapping test index -> Outcome. The calls run `CALL_BATCH` at a time in
    one child each, lazily (a run that stops at its first failure runs no batch past it); a batch
    starts at the first test asked for that no batch answered (with `stop`, a batch ends at its
    first call that does not return). An index whose batch did not run cleanly is not in it: that
    test runs one child of its own. The first call of a batch runs in a fresh child, as a test
    alone does (`fresh`); `restart(i)` runs the batch again from test i. `run_once(run, text,
    timeout)` runs the program once on the judging worker."""

    def __init__(
        self,
        run_once: Callable[[Run, str, float], Outcome],
        run: Run,
        tests: list[dict[str, str]],
        limits: Limits,
        stop: bool = False,
        call_s: float | None = None,
    ) -> None:
        self.run_once, self.run, self.tests, self.limits = run_once, run, tests, limits
        self.stop = stop
        self.call_s = min(call_s, limits.time_s) if call_s else limits.time_s
        self.done: dict[int, Outcome | None] = {}
        self.first = True
        self.starts: set[int] = set()

    def fresh(self, i: int) -> bool:
        """Whether test i was the first call of its batch: nothing ran before it in that child."""
        return i in self.starts

    def restart(self, i: int) -> None:
        """Forget the outcomes from test i on: the next asked for runs a batch from there."""
        for k in [k for k in self.done if k >= i]:
            del self.done[k]

    def __contains__(self, i: object) -> bool:
        if not isinstance(i, int) or not 0 <= i < len(self.tests):
            return False
        if i not in self.done:
            self._run_batch(i)
        return self.done.get(i) is not None

    def __getitem__(self, i: int) -> Outcome:
        out = self.done.get(i)
        if out is None:
            raise KeyError(i)
        return out

    def _run_batch(self, start: int) -> None:
        chunk = self.tests[start : start + CALL_BATCH]
        n = len(chunk)
        per = self.call_s
        whole = Limits(time_s=per * (n + 1), memory_mb=self.limits.memory_mb,
                       output_bytes=self.limits.output_bytes)  # fmt: skip
        text = json.dumps([t["input"] for t in chunk])
        run = self.run._replace(
            limits=RunLimits.of(whole), batch=True, call_time_s=per, first=self.first,
            cache=True, io_mb=self.run.io_mb + 4 * len(text) // (1 << 20) + 1, stop=self.stop,
        )  # fmt: skip
        self.first = False
        r = self.run_once(run, text, answer_timeout(whole.wall_s))
        calls = (r.record or {}).get("calls") if r.status == Status.OK else None
        # with `stop`, the batch ends at its first call that did not return
        short = (
            self.stop and isinstance(calls, list) and 0 < len(calls) < n
            and isinstance(calls[-1], dict) and "status" in calls[-1]
        )  # fmt: skip
        if (
            not isinstance(calls, list)
            or (len(calls) != n and not short)
            or not (r.record or {}).get("done")
        ):
            for k in range(n):  # the program did not start, or its child died: one run a test
                self.done[start + k] = None
            return
        self.starts.add(start)
        for k, c in enumerate(calls):  # (the calls a stop left out are asked for again later)
            self.done[start + k] = self._outcome(c, r) if isinstance(c, dict) else None

    @staticmethod
    def _outcome(c: dict[str, Any], r: Outcome) -> Outcome:
        cpu = c.get("cpu_ms")
        cpu_ms = float(cpu) if isinstance(cpu, (int, float)) else 0.0
        status = c.get("status")
        if status in (Status.TLE, Status.MLE, Status.RE):
            return Outcome(status, cpu_ms=cpu_ms, wall_ms=cpu_ms, peak_mem_kb=r.peak_mem_kb,
                           exit="batch", stderr=str(c.get("error") or "")[-2000:])  # fmt: skip
        record: dict[str, Any] = {k: c[k] for k in ("result", "unserializable") if k in c}
        return Outcome(Status.OK, cpu_ms=cpu_ms, wall_ms=cpu_ms, peak_mem_kb=r.peak_mem_kb,
                       exit="exit 0", record=record)  # fmt: skip
