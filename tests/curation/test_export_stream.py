"""Streaming export: fixed types across chunks, one batch in memory, and an atomic replace."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from curation.export import TRL_SCHEMA, VERL_SCHEMA, export
from curation.schema import blank_record
from filters.contracts import UserError


def _build(tmp_path: Path, rows_per_shard: int = 3) -> Path:
    """A finished build of two shards: difficulties all missing in the first, present in the second."""
    out = tmp_path / "build"
    (out / "problems").mkdir(parents=True)
    (out / "manifest.json").write_text(json.dumps({"stages": []}))
    for shard in range(2):
        rows = []
        for i in range(rows_per_shard):
            r = blank_record(
                {
                    "source": "toy",
                    "id": f"{shard}-{i}",
                    "statement": f"Print {i}.",
                    "test_type": "stdio",
                    "tests": [{"input": "", "output": f"{i}\n"}],
                    "solutions": [f"print({i})"],
                }
            )
            r["problem_id"] = f"toy/{shard}-{i}"
            r["difficulty"] = None if shard == 0 else 0.25 * i
            r["difficulty_bucket"] = None if shard == 0 else i
            rows.append(r)
        table = pa.Table.from_pylist(rows)
        pq.write_table(table, out / "problems" / f"part-{shard:05d}.parquet")
    return out


@pytest.mark.parametrize("fmt", ["verl", "trl"])
def test_types_do_not_depend_on_the_first_chunk(tmp_path: Path, fmt: str) -> None:
    build = _build(tmp_path)
    counts = export(build, fmt, tmp_path / "x")
    assert counts == {"train": 6}
    if fmt == "verl":
        t = pq.read_table(tmp_path / "x" / "train.parquet")
        assert t.schema == VERL_SCHEMA
        diffs = [e["difficulty"] for e in t.column("extra_info").to_pylist()]
        assert [e["index"] for e in t.column("extra_info").to_pylist()] == list(range(6))
    else:
        ds = datasets.load_from_disk(str(tmp_path / "x"))["train"]
        assert pa.schema(ds.features.arrow_schema) == TRL_SCHEMA
        diffs = ds["difficulty"]
    assert diffs == [None, None, None, 0.0, 0.25, 0.5]


def test_a_failed_export_leaves_the_previous_one_and_no_partial_files(tmp_path: Path) -> None:
    build = _build(tmp_path)
    out = tmp_path / "x"
    export(build, "jsonl", out)
    before = (out / "train.jsonl").read_text()
    with pytest.raises(UserError, match="no such column"):
        export(build, "jsonl", out, split_by="nope")
    assert (out / "train.jsonl").read_text() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
