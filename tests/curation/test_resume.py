"""A build killed with SIGKILL at any point and resumed gives the same shards and manifest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from curation.record_files import write_jsonl
from tests.conftest import wait_s

LIGHT = ["--skip", "verify", "--skip", "dedup", "--skip", "difficulty"]


def corpus(path: Path, n: int = 60) -> Path:
    write_jsonl(
        [
            {
                "id": f"p{i:03d}",
                "source": "toy" if i % 3 else "other",
                "statement": f"Print {i} times {i}.",
                "test_type": "stdio",
                "tests": [{"input": "", "output": f"{i * i}\n"}],
                "solutions": [f"print({i} * {i})"],
            }
            for i in range(n)
        ]
        + [{"id": "broken", "source": "toy", "statement": "?", "test_type": "stdio", "tests": "nope"}],
        path,
    )
    return path


def command(src: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "curation.cli", "build", "--source", str(src), "--out", str(out),
            "--batch-rows", "2", "--shard-rows", "7", "--log-json", *LIGHT]


def run_and_kill(cmd: list[str], after_events: int) -> bool:
    """Start a build and SIGKILL it after `after_events` progress lines; True if it was killed."""
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    seen = 0
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith("{") and json.loads(line).get("event") == "progress":
            seen += 1
            if seen >= after_events:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                return True
    proc.wait()
    return False


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    src = corpus(d / "toy.jsonl")
    subprocess.run(command(src, d / "out"), check=True, capture_output=True)
    return src, json.loads((d / "out" / "manifest.json").read_text())


@pytest.mark.parametrize("after_events", [1, 17, 44])
def test_sigkill_then_resume_matches_uninterrupted(tmp_path, reference, after_events):
    src, ref_manifest = reference
    out = tmp_path / "out"
    killed = run_and_kill(command(src, out), after_events)
    assert killed, "the build finished before it could be killed; raise the corpus size"
    assert not (out / "manifest.json").exists()
    subprocess.run(command(src, out), check=True, capture_output=True)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["config"]["sources"][0]["path"] = ref_manifest["config"]["sources"][0]["path"]
    assert manifest == ref_manifest


# A slow stage (each row takes a while), run by the pipeline in a process of its own; it logs
# every row it judges, so that the log says which rows a resumed run judged again.
_SLOW_PIPELINE = r"""
import sys, time
from pathlib import Path
import pyarrow as pa
from curation.pipeline import Pipeline
from filters.stage import Decision, RowStage

work, log, part_after_s = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])

class Slow(RowStage):
    name = "slow"
    output_schema = pa.schema([pa.field("number", pa.int64())])

    def judge(self, row):
        time.sleep(0.03)
        n = int(row["id"][1:])
        with log.open("a") as f:
            f.write(f"{n}\n")
        return Decision(True, columns={"number": n}) if n % 3 else Decision.drop("three", number=n)

rows = [{"id": f"p{i}", "source": "s", "statement": f"Print {i}.", "test_type": "stdio",
         "tests": [{"input": "", "output": f"{i}\n"}], "solutions": [f"print({i})"]} for i in range(60)]
Pipeline(work, [Slow()], batch_rows=256, chunk_rows=4, part_after_s=part_after_s).run(iter(rows))
"""


def _judged(log: Path) -> list[int]:
    return [int(x) for x in log.read_text().split()] if log.exists() else []


def _slow_pipeline(work: Path, log: Path, part_after_s: float = 0.0) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", _SLOW_PIPELINE, str(work), str(log), str(part_after_s)])


def _kill_after(proc: subprocess.Popen, log: Path, rows: int) -> None:
    """SIGKILL the pipeline once it has judged `rows` rows."""
    try:
        while len(_judged(log)) < rows and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()


def test_a_killed_unit_resumes_after_its_last_judged_chunk_and_ends_the_same(tmp_path):
    """One 60-row unit of a slow stage, judged 4 rows at a time, SIGKILLed after 30 rows: the
    resumed run judges only the rows no part holds (at most the chunk that was being judged
    again), and the unit's outputs are those of an uninterrupted run."""
    from curation.pipeline import parts_dir, read_parts

    whole = tmp_path / "whole"
    assert _slow_pipeline(whole, tmp_path / "whole.log").wait(timeout=wait_s(120)) == 0
    work, log = tmp_path / "work", tmp_path / "run.log"
    _kill_after(_slow_pipeline(work, log), log, 30)
    first = _judged(log)
    stage_dir = work / "01-slow"
    assert not (stage_dir / "unit-00000.json").exists(), "the unit finished before the kill"
    covered, _, _ = read_parts(parts_dir(stage_dir, 0))
    assert covered >= 28 and covered % 4 == 0 and len(first) - covered <= 4, (covered, len(first))
    assert _slow_pipeline(work, log).wait(timeout=wait_s(120)) == 0
    again = _judged(log)[len(first) :]
    assert again == list(range(covered, 60))  # nothing a part holds is judged again
    assert not parts_dir(stage_dir, 0).exists()  # the unit is whole: its parts are gone
    for suffix in ("parquet", "rejected.parquet"):
        name = f"unit-00000.{suffix}"
        assert pq.read_table(stage_dir / name).equals(pq.read_table(whole / "01-slow" / name))


def test_a_unit_quicker_than_part_after_s_keeps_no_part(tmp_path):
    """Below `part_after_s` no part is written (a fast stage pays for no extra files): a killed
    unit is judged again whole."""
    from curation.pipeline import parts_dir

    work, log = tmp_path / "work", tmp_path / "run.log"
    _kill_after(_slow_pipeline(work, log, part_after_s=600.0), log, 30)
    assert not parts_dir(work / "01-slow", 0).exists()
    first = len(_judged(log))
    assert _slow_pipeline(work, log, part_after_s=600.0).wait(timeout=wait_s(120)) == 0
    assert _judged(log)[first:] == list(range(60))
