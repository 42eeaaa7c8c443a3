"""The same command gives the same bytes (issue 58): two builds of real MBPP problems, in processes
with different `PYTHONHASHSEED` values, one of them SIGKILLed in amplify and resumed, write shards
whose bytes are equal once the manifest's measured columns are taken out. mbpp/945 (`tuple_to_set`)
returns a set of strings: its generated tests' expected sets were written in the order of the
build process's string hashing, so the two problems shards differed."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "mbpp.jsonl.gz"
#: 945 returns a set of strings, 473 and 490 sets of tuples; the others are plain
TASKS = (945, 473, 490, 2, 19, 46)

pytestmark = pytest.mark.skipif(not SHARED.exists(), reason="needs ../shared/data/mbpp.jsonl.gz")


def _slice(path: Path) -> Path:
    with gzip.open(SHARED, "rt") as f:
        rows = [json.loads(line) for line in f]
    picked = [r for r in rows if r["task_id"] in TASKS]
    assert len(picked) == len(TASKS)
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in picked)
    return path


def _command(src: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "curation.cli", "build", "--source", f"mbpp:{src}", "--out",
            str(out), "--skip", "difficulty", "--batch-rows", "2", "--log-json", "--workers", "2"]  # fmt: skip


def _env(seed: int) -> dict[str, str]:
    return dict(os.environ, PYTHONHASHSEED=str(seed))


def _killed_in_amplify(cmd: list[str], seed: int, after: int = 2) -> bool:
    """Run a build and SIGKILL it once amplify has reported `after` problems; True if killed."""
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=_env(seed))
    assert proc.stderr is not None
    for line in proc.stderr:
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        if event.get("event") == "progress" and event.get("stage") == "amplify" and event["done"] >= after:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            return True
    proc.wait()
    return False


def _measured_out(out: Path) -> tuple[set[str], dict[str, Any]]:
    manifest = json.loads((out / "manifest.json").read_text())
    return set(manifest["measured_columns"]), manifest


def _bytes_without(table: pa.Table, measured: set[str]) -> bytes:
    """The table without its measured columns (nor the same keys inside `reject_detail`), as
    Arrow IPC bytes."""
    t = table.drop_columns([c for c in table.column_names if c in measured])
    if "reject_detail" in t.column_names:
        details = []
        for d in t.column("reject_detail").to_pylist():
            if d is not None:
                parsed = json.loads(d)
                d = json.dumps({k: v for k, v in parsed.items() if k not in measured})
            details.append(d)
        t = t.set_column(t.column_names.index("reject_detail"), "reject_detail", pa.array(details, pa.string()))
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, t.schema) as w:
        w.write_table(t)
    return sink.getvalue().to_pybytes()


def _has_measured_detail(table: pa.Table, measured: set[str]) -> bool:
    return any(
        d is not None and measured & set(json.loads(d))
        for d in table.column("reject_detail").to_pylist()
    )


def test_two_hash_seeds_one_killed_and_resumed_give_the_same_bytes(tmp_path):
    src = _slice(tmp_path / "mbpp-slice.jsonl.gz")
    a, b = tmp_path / "a", tmp_path / "b"
    subprocess.run(_command(src, a), check=True, capture_output=True, env=_env(1))
    assert _killed_in_amplify(_command(src, b), seed=2), "the build finished before the kill"
    assert not (b / "manifest.json").exists()
    subprocess.run(_command(src, b), check=True, capture_output=True, env=_env(3))
    measured, manifest = _measured_out(a)
    assert measured == _measured_out(b)[0]
    assert set(manifest["measured_reasons"]) == measured and all(manifest["measured_reasons"].values())
    for kind in ("problems", "rejected"):
        files_a = sorted(p.name for p in (a / kind).glob("*.parquet"))
        assert files_a == sorted(p.name for p in (b / kind).glob("*.parquet"))
        for name in files_a:
            ta, tb = pq.read_table(a / kind / name), pq.read_table(b / kind / name)
            assert _bytes_without(ta, measured) == _bytes_without(tb, measured), f"{kind}/{name}"
            if kind == "rejected":  # no measured value is written there (the manifest holds them)
                assert not _has_measured_detail(ta, measured)
                assert hashlib.sha256((a / kind / name).read_bytes()).digest() == hashlib.sha256(
                    (b / kind / name).read_bytes()
                ).digest(), f"{kind}/{name} as a whole"
    # mbpp/945 was amplified, and its expected sets are written sorted
    kept = pa.concat_tables([pq.read_table(p) for p in sorted((a / "problems").glob("*.parquet"))])
    row = next(r for r in kept.to_pylist() if r["problem_id"] == "mbpp/945")
    assert row["generated_tests"], row["amplify_note"]
    for t in row["generated_tests"]:
        expected = json.loads(t["env"])["__cm_expected"]["s"]
        assert expected == sorted(expected)
