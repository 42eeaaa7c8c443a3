"""How a running build shows its progress: a live bar on a terminal, plain lines everywhere else.

Off a terminal (`nohup`, a log file, CI) a background thread prints one plain line to stderr
every `interval` seconds, whatever the pipeline is doing, plus one line when a stage ends:

    [  4m 10s] verify: 812/3328 problems (24%), 3.2/s, about 13m left

Counts are problems (rows), as the pipeline reports them: amplify and verify count each problem as
its decision is final, other stages a chunk of rows at a time. The rate is measured over the last
`window` seconds of this run (a resumed build does not count the work it found done, and the fast
rows a stage rejects early, such as `too_few_tests`, stop inflating it once they are past). When
no problem has finished for `slow_after` seconds, the line names the problem under way the longest
and how long it has run (each stage's CPU budget for a problem bounds it):

    [ 41m 10s] amplify: 706/764 problems (92%), none finished in the last 2m 30s; under way the
    longest: codecontests-subset/1238_e_keyboard_purchase_2831 (2m 41s), and 3 more
"""

from __future__ import annotations

import bisect
import json
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress

__all__ = ["StageProgress", "ProgressReporter", "format_duration"]


def format_duration(seconds: float) -> str:
    """`75` -> `1m 15s`; `4000` -> `1h 6m`."""
    s = int(round(max(0.0, seconds)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


@dataclass
class StageProgress:
    """What is known of one stage: problems done out of total, and when this run started it."""

    name: str
    done: int = 0
    total: int | None = None
    started: float = field(default_factory=time.monotonic)
    done_at_start: int | None = None
    info: dict[str, int] = field(default_factory=dict)
    #: seconds of recent history the rate is measured over
    window: float = 300.0
    #: seconds without a finished problem after which the line names the slowest one under way
    slow_after: float = 60.0
    #: problems under way (as the stage reports them): key -> when it started
    running: dict[str, float] = field(default_factory=dict)
    #: when the count last moved (or the stage started)
    last_done: float | None = None
    _times: list[float] = field(default_factory=list)
    _dones: list[int] = field(default_factory=list)

    def problem(self, event: str, key: str, now: float | None = None) -> None:
        """A problem of this stage started ("start") or ended ("done")."""
        now = time.monotonic() if now is None else now
        if event == "start":
            self.running[key] = now
        else:
            self.running.pop(key, None)

    def slowest(self, now: float) -> str | None:
        """`KEY (2m 41s), and 3 more` for the problem under way the longest, once nothing has
        finished for `slow_after` seconds; None otherwise."""
        quiet = now - (self.last_done if self.last_done is not None else self.started)
        if not self.running or quiet < self.slow_after or self.finished:
            return None
        key, since = min(self.running.items(), key=lambda kv: (kv[1], kv[0]))
        more = len(self.running) - 1
        text = f"{key} ({format_duration(now - since)})"
        return text + (f", and {more} more" if more else "")

    def update(
        self, done: int, total: int | None, info: dict[str, int], now: float | None = None
    ) -> None:
        now = time.monotonic() if now is None else now
        if self.done_at_start is None:
            self.done_at_start = done
            self._times.append(self.started)
            self._dones.append(done)
        if self.last_done is None or done != self.done:
            self.last_done = now
        self.done, self.total = done, total
        self.info.update(info)
        self._times.append(now)
        self._dones.append(done)

    def rate(self, now: float) -> float | None:
        """Problems per second over the last `window` seconds of this run (None before any progress)."""
        since = max(self.started, now - self.window)
        i = max(
            0, bisect.bisect_right(self._times, since) - 1
        )  # the last sample at or before `since`
        base = self._dones[i] if self._dones else (self.done_at_start or 0)
        elapsed = now - (self._times[i] if self._times else since)
        new = self.done - base
        return new / elapsed if elapsed > 0 and new > 0 else None

    @property
    def finished(self) -> bool:
        return self.total is not None and self.done >= self.total and "kept" in self.info

    def line(self, now: float) -> str:
        """`verify: 812/3328 problems (24%), 3.2/s, about 13m left` (what is known of it)."""
        if self.finished:
            return f"{self.name}: done ({self.done} problems); working on what follows it"
        rate = self.rate(now)
        if self.total is None:
            text = f"{self.name}: {self.done} problems read"
        else:
            pct = 100.0 * self.done / self.total if self.total else 100.0
            text = f"{self.name}: {self.done}/{self.total} problems ({pct:.0f}%)"
        if rate is not None:
            text += f", {rate:.1f}/s"
            if self.total is not None and self.done < self.total:
                text += f", about {format_duration((self.total - self.done) / rate)} left"
        elif self.done > (self.done_at_start or 0):
            text += f", none finished in the last {format_duration(min(self.window, now - self.started))}"
        elif self.total is not None and self.done < self.total:
            text += ", rate not known yet"
        slow = self.slowest(now)
        if slow is not None:
            text += f"; under way the longest: {slow}"
        return text


class ProgressReporter:
    """The pipeline's `progress` callback. Modes: `bar` (a terminal), `lines` (plain lines every
    `interval` seconds) and `json` (one JSON object per update, for `--log-json`)."""

    def __init__(
        self,
        mode: str,
        *,
        interval: float = 30.0,
        stream: TextIO | None = None,
        slow_after: float = 60.0,
    ) -> None:
        if mode not in ("bar", "lines", "json"):
            raise ValueError(f"unknown progress mode {mode!r}")
        if interval <= 0:
            raise ValueError("the progress interval must be positive")
        self.mode, self.interval, self.slow_after = mode, interval, slow_after
        self.stream = stream
        self.stages: dict[str, StageProgress] = {}
        self.current: StageProgress | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()
        self._bar: RichProgress | None = None
        self._tasks: dict[str, TaskID] = {}

    # -- lifecycle ---------------------------------------------------------------------------
    def __enter__(self) -> ProgressReporter:
        self._t0 = time.monotonic()
        if self.mode == "bar":
            self._bar = RichProgress(
                TextColumn("{task.description:<10}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[info]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self._bar.__enter__()
        elif self.mode == "lines":
            self._thread = threading.Thread(target=self._tick, name="codemix-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the ticker thread or the live bar (idempotent)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None

    # -- the callback ------------------------------------------------------------------------
    def __call__(self, stage: str, done: int, total: int | None, info: dict[str, int]) -> None:
        with self._lock:
            st = self._stage(stage)
            st.update(done, total, info)
            self.current = st
            finished = st.finished
        if self.mode == "json":
            self._print(
                json.dumps(
                    {"event": "progress", "stage": stage, "done": done, "total": total, **info}
                )
            )
        elif self.mode == "bar" and self._bar is not None:
            if stage not in self._tasks:
                self._tasks[stage] = self._bar.add_task(stage, total=total, info="")
            text = " ".join(f"{k}={v}" for k, v in info.items())
            self._bar.update(self._tasks[stage], completed=done, total=total, info=text)
        elif self.mode == "lines" and finished:
            kept, dropped = info.get("kept", 0), info.get("dropped", 0)
            took = format_duration(time.monotonic() - st.started)
            self._print(
                f"{self._stamp()} {stage}: done, {done} problems, {kept} kept, {dropped} dropped ({took})"
            )

    def _stage(self, stage: str) -> StageProgress:
        st = self.stages.get(stage)
        if st is None:
            st = self.stages[stage] = StageProgress(stage, slow_after=self.slow_after)
        return st

    def problem(self, stage: str, event: str, key: str) -> None:
        """The pipeline's `on_problem` listener: a problem of `stage` started or ended."""
        with self._lock:
            self._stage(stage).problem(event, key)

    def status(self) -> str:
        """The plain line for the stage that reported last (empty before any report)."""
        with self._lock:
            if self.current is None:
                return ""
            return f"{self._stamp()} {self.current.line(time.monotonic())}"

    # -- plain lines ---------------------------------------------------------------------------
    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            line = self.status()
            self._print(line or f"{self._stamp()} starting")

    def _stamp(self) -> str:
        return f"[{format_duration(time.monotonic() - self._t0):>7}]"

    def _print(self, text: str) -> None:
        stream = self.stream or sys.stderr
        print(text, file=stream, flush=True)
