"""A build talks off a terminal: plain progress lines at a steady interval, and Ctrl-C says how to resume."""

from __future__ import annotations

import io
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

from curation.pipeline import Pipeline
from curation.progress import ProgressReporter, StageProgress, format_duration
from filters.stage import Decision, RowStage
from tests.conftest import wait_s


def test_a_stage_line_says_done_total_rate_and_time_left():
    st = StageProgress("verify", started=100.0)
    st.update(0, 3328, {}, now=100.0)
    assert st.line(101.0) == "verify: 0/3328 problems (0%), rate not known yet"
    st.update(800, 3328, {}, now=300.0)
    assert st.line(300.0) == "verify: 800/3328 problems (24%), 4.0/s, about 10m 32s left"
    read = StageProgress("schema", started=0.0)
    read.update(0, None, {}, now=0.0)
    read.update(512, None, {"kept": 500}, now=2.0)
    assert read.line(2.0) == "schema: 512 problems read, 256.0/s"
    assert format_duration(59.4) == "59s" and format_duration(3725) == "1h 02m"


def test_the_rate_is_recent_so_fast_early_rejects_do_not_promise_an_early_end():
    """Shared data: verify dropped 2,354 too_few_tests rows in a minute, then judged 300 slowly."""
    st = StageProgress("verify", started=0.0, window=300.0)
    st.update(0, 1000, {}, now=0.0)
    st.update(900, 1000, {}, now=10.0)
    st.update(910, 1000, {}, now=400.0)
    assert abs(st.rate(400.0) - 10 / 390) < 1e-9  # not 910 / 400
    assert st.line(400.0).endswith("about 58m 30s left")
    assert st.rate(1000.0) is None  # nothing finished in the window: no stale promise
    assert st.line(1000.0) == "verify: 910/1000 problems (91%), none finished in the last 5m 00s"


def test_a_resumed_stage_does_not_count_work_done_before_it_started():
    st = StageProgress("verify", started=0.0)
    st.update(1000, 2000, {}, now=0.0)  # found done on resume
    st.update(1100, 2000, {}, now=50.0)
    assert st.rate(50.0) == 2.0


def test_plain_lines_come_at_a_steady_interval_while_nothing_reports():
    out = io.StringIO()
    with ProgressReporter("lines", interval=0.1, stream=out) as reporter:
        reporter("verify", 64, 256, {})
        time.sleep(0.55)  # the pipeline is busy inside a chunk: no callback meanwhile
    lines = [
        line for line in out.getvalue().splitlines() if "verify: 64/256 problems (25%)" in line
    ]
    assert len(lines) >= 3, out.getvalue()
    assert all(re.match(r"^\[[\dhms ]+\] verify: ", line) for line in lines)


def _build_cmd(out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "curation.cli",
        "build",
        "--out",
        str(out),
        "--workers",
        "2",
        *extra,
    ]


def test_a_build_off_a_terminal_prints_progress_lines(tmp_path):
    r = subprocess.run(_build_cmd(tmp_path / "out", "--progress-interval", "0.5"), capture_output=True, text=True,
                       timeout=wait_s(300))  # fmt: skip
    assert r.returncode == 0, r.stderr
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    verify = next(s for s in m["counts"]["stages"] if s["stage"] == "verify")
    kept = sum(verify["kept"].values())
    n = kept + sum(verify["dropped"].values())
    # the time is `[ 1m 05s]` past a minute: a pattern of seconds only failed at load 15 (issue 57)
    assert re.search(rf"^\[[\dhms ]+\] verify: \d+/{n} problems \(\d+%\)", r.stderr, re.MULTILINE), (
        r.stderr
    )
    assert re.search(
        rf"^\[[\dhms ]+\] verify: done, {n} problems, {kept} kept, {n - kept} dropped",
        r.stderr,
        re.MULTILINE,
    )


def _sigint_latency(proc: subprocess.Popen, stage_started: Callable[[], bool], delay: float) -> float:
    """Wait until `stage_started()`, then `delay` s more, send SIGINT; seconds until the build
    exits."""
    while not stage_started():
        assert proc.poll() is None, "the build ended before it could be interrupted"
        time.sleep(0.01)
    time.sleep(delay)
    t0 = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)
    proc.wait(timeout=wait_s(60))
    return time.monotonic() - t0


def _default_sigint() -> None:
    # Ctrl-C as a terminal delivers it, even when this test runs where SIGINT is ignored (a shell's
    # background job): Python makes SIGINT a KeyboardInterrupt only if it is not ignored at start.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_the_build_says_rerunning_resumes_and_rerunning_does(tmp_path):
    """Issue 42: Ctrl-C took 1 to 22 s while a stage judged (the thread pools finished their
    batch first). Interrupted inside amplify and inside verify, the build stops, says how to resume
    and keeps its finished work; how fast it stops is `benchmarks/curating/interrupt.py`'s to measure (a
    bound here failed at 2.30 s against 2.0 on a busy machine, issue 57)."""
    for stage, delay in (("amplify", 0.5), ("verify", 1.5)):
        out = tmp_path / stage
        proc = subprocess.Popen(_build_cmd(out, "--log-json"), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                text=True, preexec_fn=_default_sigint)  # fmt: skip
        assert proc.stderr is not None
        lines: list[str] = []

        def started(stderr: Any = proc.stderr, stage: str = stage, lines: list[str] = lines) -> bool:
            line = stderr.readline()
            lines.append(line)
            return line.startswith("{") and json.loads(line).get("stage") == stage

        _sigint_latency(proc, started, delay)
        rest = proc.stderr.read()
        assert proc.returncode == 130, rest
        assert "rerun the same command to resume" in rest and "Traceback" not in rest
        assert not (out / "manifest.json").exists() and (out / ".work").is_dir()
    r = subprocess.run(_build_cmd(out), capture_output=True, text=True, timeout=wait_s(300))
    assert r.returncode == 0 and "(resumed)" in r.stderr, r.stderr


def test_ctrl_c_on_a_terminal_stops_the_live_bar(tmp_path):
    """On a terminal the live bar runs on its own thread: once ran on 21.8 s after Ctrl-C."""
    import pty

    fd, term = pty.openpty()
    proc = subprocess.Popen(_build_cmd(tmp_path / "out"), stdin=term, stdout=term, stderr=term,
                            preexec_fn=_default_sigint)  # fmt: skip
    os.close(term)
    shown = bytearray()

    def read(wait: float) -> bool:
        if select.select([fd], [], [], wait)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the terminal closed with the build
                return False
            shown.extend(chunk)
            return bool(chunk)
        return False

    def started() -> bool:
        read(0.05)
        return b"amplify" in shown

    try:
        _sigint_latency(proc, started, 1.0)
        while read(0.1):  # what it printed on the way out
            pass
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(fd)
    assert b"amplify" in shown and b"\x1b[" in shown  # the live bar drew on the terminal
    assert proc.returncode == 130, proc.returncode
    assert b"rerun the same command to resume" in shown


def test_a_quiet_stage_names_the_problem_under_way_the_longest():
    """Issue 58: amplify sat at 706/764 for 25 minutes saying only "none finished"."""
    st = StageProgress("amplify", started=0.0, slow_after=60.0)
    st.update(0, 764, {}, now=0.0)
    for key, t in (("cc/fast", 0.0), ("cc/1238_e_keyboard_purchase", 1.0), ("mbpp/2", 2.0)):
        st.problem("start", key, now=t)
    st.problem("done", "cc/fast", now=100.0)
    st.update(706, 764, {}, now=100.0)
    assert "under way" not in st.line(130.0)  # something finished 30 s ago
    assert st.line(400.0) == (
        "amplify: 706/764 problems (92%), none finished in the last 5m 00s; "
        "under way the longest: cc/1238_e_keyboard_purchase (6m 39s), and 1 more"
    )
    st.problem("done", "cc/1238_e_keyboard_purchase", now=401.0)
    st.update(707, 764, {}, now=401.0)
    assert "under way" not in st.line(402.0)


class _Reports(RowStage):
    """Says when each problem starts and ends, as amplify and verify do."""

    name = "reports"
    output_schema = pa.schema([])

    def judge_rows(self, rows):
        out = []
        for row in rows:
            self.problem_event("start", row)
            out.append(Decision(True))
            self.problem_event("done", row)
        return out


class _Quiet(RowStage):
    name = "quiet"
    output_schema = pa.schema([])

    def judge(self, row):
        return Decision(True)


def test_a_stage_that_reports_its_problems_is_counted_one_problem_at_a_time(tmp_path):
    seen: list[tuple[str, str, Any]] = []
    rows = [{"id": f"p{i}", "source": "s", "statement": f"Print {i}.", "test_type": "stdio",
             "tests": [{"input": "", "output": f"{i}\n"}], "solutions": [f"print({i})"]}
            for i in range(10)]  # fmt: skip
    Pipeline(tmp_path / "work", [_Reports(), _Quiet()], batch_rows=256, chunk_rows=4,
             progress=lambda stage, done, total, info: seen.append(("count", stage, done)),
             on_problem=lambda stage, event, key: seen.append((event, stage, key))).run(iter(rows))  # fmt: skip
    counts = {st: [d for kind, s, d in seen if kind == "count" and s == st] for st in ("reports", "quiet")}
    assert sorted(set(counts["reports"])) == list(range(11))  # each problem as it ends
    assert sorted(set(counts["quiet"])) == [0, 4, 8, 10]  # a chunk at a time
    events = [(kind, key) for kind, s, key in seen if kind != "count" and s == "reports"]
    assert events == [(e, f"s/p{i}") for i in range(10) for e in ("start", "done")]
