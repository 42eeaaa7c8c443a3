"""A build talks off a terminal: plain progress lines at a steady interval, and Ctrl-C says how to resume."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from curation.progress import ProgressReporter, StageProgress, format_duration


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
    assert all(re.match(r"^\[\s*\d+s\] verify: ", line) for line in lines)


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
                       timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stderr
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    verify = next(s for s in m["counts"]["stages"] if s["stage"] == "verify")
    kept = sum(verify["kept"].values())
    n = kept + sum(verify["dropped"].values())
    assert re.search(rf"^\[\s*\d+s\] verify: \d+/{n} problems \(\d+%\)", r.stderr, re.MULTILINE), (
        r.stderr
    )
    assert re.search(
        rf"^\[\s*\d+s\] verify: done, {n} problems, {kept} kept, {n - kept} dropped",
        r.stderr,
        re.MULTILINE,
    )


def test_ctrl_c_says_rerunning_resumes_and_rerunning_does(tmp_path):
    out = tmp_path / "out"
    # Ctrl-C as a terminal delivers it, even when this test runs where SIGINT is ignored (a shell's
    # background job): Python makes SIGINT a KeyboardInterrupt only if it is not ignored at start.
    proc = subprocess.Popen(_build_cmd(out, "--log-json"), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith("{") and json.loads(line).get("stage") in ("amplify", "verify"):
            os.kill(proc.pid, signal.SIGINT)
            break
    rest = proc.stderr.read()
    assert proc.wait(timeout=120) == 130, rest
    assert "rerun the same command to resume" in rest and "Traceback" not in rest
    assert not (out / "manifest.json").exists() and (out / ".work").is_dir()
    r = subprocess.run(_build_cmd(out), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "(resumed)" in r.stderr, r.stderr
