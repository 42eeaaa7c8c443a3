"""Whole builds through the command line: outputs, manifest, determinism, resume rules, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.schema import write_jsonl
from curation.store import read_manifest

runner = CliRunner()
LIGHT = ["--skip", "verify", "--skip", "dedup", "--skip", "difficulty"]


def corpus(path: Path, n: int = 12) -> Path:
    rows = [
        {
            "id": f"sum{i}",
            "source": "toy",
            "statement": f"Read numbers and print their sum plus {i}.",
            "test_type": "stdio",
            "tests": [{"input": "1 2\n", "output": f"{3 + i}\n"}],
            "solutions": [f"print(sum(map(int, input().split())) + {i})"],
        }
        for i in range(n)
    ]
    rows.append({"id": "bad", "source": "toy", "statement": "x", "test_type": "call", "entry_point": "f",
                 "tests": [{"input": "not json", "output": "1"}]})
    rows.append(dict(rows[0]))  # the same id twice
    write_jsonl(rows, path)
    return path


def build(*args: str):
    return runner.invoke(app, ["build", *args])


def test_build_writes_layout_and_manifest(tmp_path):
    src = corpus(tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    r = build("--source", str(src), "--out", str(out), "--shard-rows", "5", *LIGHT)
    assert r.exit_code == 0, r.output
    m = read_manifest(out)
    assert m["counts"]["input"] == {"toy": 14}
    assert m["counts"]["output"] == {"toy": 12}
    assert [f["rows"] for f in m["problems"]] == [5, 5, 2]
    reasons = {s["stage"]: s["reasons"] for s in m["counts"]["stages"]}
    assert reasons["schema"] == {"malformed": 1} and reasons["exact_id"] == {"duplicate_id": 1}
    rej = pq.read_table(out / "rejected" / "part-00000.parquet").to_pylist()
    assert {(r["reject_stage"], r["reject_reason"]) for r in rej} == {
        ("schema", "malformed:tests"),
        ("exact_id", "duplicate_id:toy/sum0"),
    }
    assert "call input must be a JSON array" in next(r for r in rej if r["reject_stage"] == "schema")["reject_detail"]
    assert not (out / ".work").exists()
    assert (out / "report" / "index.html").exists()
    shard = pq.read_table(out / "problems" / "part-00000.parquet")
    assert "_row" not in shard.column_names and shard.column("problem_id")[0].as_py() == "toy/sum0"


def test_same_input_gives_identical_shards(tmp_path):
    src = corpus(tmp_path / "toy.jsonl")
    sums = []
    for name in ("a", "b"):
        assert build("--source", str(src), "--out", str(tmp_path / name), "--batch-rows", "3" if name == "a" else "7", *LIGHT).exit_code == 0
        sums.append([f["sha256"] for f in read_manifest(tmp_path / name)["problems"]])
    assert sums[0] == sums[1]


def test_rebuild_same_config_is_a_noop_and_other_config_needs_force(tmp_path):
    src = corpus(tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    assert build("--source", str(src), "--out", str(out), *LIGHT).exit_code == 0
    r = build("--source", str(src), "--out", str(out), *LIGHT)
    assert r.exit_code == 0 and "nothing to do" in r.output
    r = build("--source", str(src), "--out", str(out), "--shard-rows", "3", *LIGHT)
    assert r.exit_code == 2 and "--force" in r.output
    assert build("--source", str(src), "--out", str(out), "--shard-rows", "3", "--force", *LIGHT).exit_code == 0
    assert len(read_manifest(out)["problems"]) == 4


@pytest.mark.parametrize(
    "args, message",
    [
        (["--source", "no-such-source"], "unknown source"),
        (["--source", "mbpp:/no/such/file.jsonl"], "/no/such/file.jsonl"),
        (["--source", "/no/such/canonical.jsonl"], "/no/such/canonical.jsonl"),
        (["--limit", "0"], "--limit"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(tmp_path, args, message):
    r = build(*args, "--out", str(tmp_path / "o"))
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert "Traceback" not in r.output


def test_info_query_on_a_build_and_on_a_non_build(tmp_path):
    src = corpus(tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    assert build("--source", str(src), "--out", str(out), *LIGHT).exit_code == 0
    r = runner.invoke(app, ["info", str(out)])
    assert r.exit_code == 0 and "toy" in r.output and "malformed" in r.output
    r = runner.invoke(app, ["query", str(out), "SELECT count(*) AS n FROM problems", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout.splitlines()[0]) == {"n": 12}
    r = runner.invoke(app, ["query", str(out), "SELECT nope FROM problems"])
    assert r.exit_code == 2 and "query failed" in r.output
    r = runner.invoke(app, ["info", str(tmp_path)])
    assert r.exit_code == 2 and "unfinished" in r.output
