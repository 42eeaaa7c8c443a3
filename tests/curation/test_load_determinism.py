"""The same command and data give the same dataset under any load (issue 42): a build of real rows
on the machine as it is, and the same build under a CPU burner on every core, SIGKILLed mid-way
and resumed under the burner, agree outside the columns their manifests declare measured.

The rows include `893_e_counting_arrays`, whose reference precomputes a table (0.6 s on every
input): amplify kept 19 of its new inputs in one build and 15 in the same build under load when
a new input had to cost at most about what the slowest original did. A smaller version of
`benchmarks/curating/load_determinism.py`. Skipped without ../shared/data."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import shared_file, wait_s
from tests.curation.reproducible import differences

#: CodeContests rows (the slow one above, and two quick ones) and MBPP rows outside its test split
CODECONTESTS = ("893_e_counting_arrays_6936",)
MBPP = (611, 620)


def _rows(tmp: Path) -> list[str]:
    """The chosen rows, each source's in a file of its own format; the `--source` arguments."""
    cc = [r for r in map(json.loads, gzip.open(shared_file("codecontests-subset300.jsonl.gz"))) if r["id"] in CODECONTESTS]
    mbpp = [r for r in map(json.loads, gzip.open(shared_file("mbpp.jsonl.gz"))) if r["task_id"] in MBPP]
    assert len(cc) == len(CODECONTESTS) and len(mbpp) == len(MBPP)
    (tmp / "cc.jsonl").write_text("".join(json.dumps(r) + "\n" for r in cc))
    (tmp / "mbpp.jsonl").write_text("".join(json.dumps(r) + "\n" for r in mbpp))
    return ["--source", f"codecontests-subset:{tmp / 'cc.jsonl'}", "--source", f"mbpp:{tmp / 'mbpp.jsonl'}"]


def _build(sources: list[str], out: Path, kill_in: str | None = None) -> bool:
    """`codemix build` of `sources` (units of 2 rows); with `kill_in`, SIGKILLed once that stage
    has finished a unit, before it finishes all. True when it ran to its end."""
    cmd = [sys.executable, "-m", "curation.cli", "build", *sources, "--out", str(out), "--workers", "2",
           "--batch-rows", "2", "--log-json"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    try:
        for line in proc.stderr:
            event = json.loads(line) if line.startswith("{") else {}
            if kill_in and event.get("stage") == kill_in and 0 < event["done"] < (event["total"] or 0):
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return False
        assert proc.wait(timeout=wait_s(900)) == 0
        return True
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _kept(out: Path) -> set[str]:
    from curation.store import read_table

    return set(read_table(out, "problems").column("problem_id").to_pylist())


def _burners() -> list[subprocess.Popen]:
    """A busy loop on every core, for at most 10 minutes whatever happens to this test."""
    code = "import time\nend = time.monotonic() + 600\nwhile time.monotonic() < end:\n    pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(os.cpu_count() or 1)]


def test_a_build_under_a_cpu_burner_killed_and_resumed_is_the_idle_build(tmp_path):
    sources = _rows(tmp_path)
    idle, loaded = tmp_path / "idle", tmp_path / "loaded"
    assert _build(sources, idle)
    burners = _burners()
    try:
        load_before = os.getloadavg()[0]
        assert not _build(sources, loaded, kill_in="amplify"), "the build ended before it was killed"
        assert not (loaded / "manifest.json").exists()
        assert _build(sources, loaded)
    finally:
        for p in burners:
            p.kill()
        for p in burners:
            p.wait()
    kept = json.loads((idle / "manifest.json").read_text())["counts"]["output"]
    assert "codecontests-subset/893_e_counting_arrays_6936" in _kept(idle) and sum(kept.values()) >= 2
    assert differences(idle, loaded) == {}, f"load average {load_before:.1f}"

