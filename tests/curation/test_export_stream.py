"""Streaming export: fixed types across chunks, one batch in memory, an atomic replace, and an
`--out` that never holds what the export did not write."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import Result
from typer.testing import CliRunner

from curation.cli import app
from curation.export import TRL_SCHEMA, VERL_SCHEMA, export
from curation.schema import blank_record
from curation.store import EXPORT_MARKER, read_export_marker
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


# -- what --out may be: an export never deletes what it did not write ----------------------------


def _cli(*args: str, cwd: Path | None = None) -> Result:
    """`codemix ARGS` in this process (errors go to stderr: `output` holds only them then)."""
    with contextlib.chdir(cwd or Path.cwd()):
        return CliRunner().invoke(app, list(args))


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def test_an_export_refuses_a_directory_holding_a_users_files(tmp_path: Path) -> None:
    """Before, `export --out myfiles` removed the user's notes.txt and exited 0."""
    build = _build(tmp_path)
    mine = tmp_path / "myfiles"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n")
    for force in ([], ["--force"]):
        r = _cli("export", str(build), "--format", "jsonl", "--out", str(mine), *force)
        assert r.exit_code == 2, r.output
        assert r.output.count("\n") == 1 and "holds no codemix export" in r.output
        assert _tree(mine) == {"notes.txt": b"mine\n"}
    # a user's file put into an earlier export is not deleted either, even with --force
    out = tmp_path / "x"
    export(build, "jsonl", out)
    (out / "notes.txt").write_text("mine\n")
    with pytest.raises(UserError, match=r"files it did not write \(notes.txt\)"):
        export(build, "jsonl", out, force=True)
    assert (out / "notes.txt").read_text() == "mine\n"


def test_an_export_never_touches_the_build_it_reads(tmp_path: Path) -> None:
    """Before, `export democopy --out democopy` deleted the build."""
    build = _build(tmp_path)
    before = _tree(build)
    for out, where in ((build, "is the build"), (build / "exported", "is inside the build"),
                       (tmp_path, "holds the build")):  # fmt: skip
        r = _cli("export", str(build), "--format", "verl", "--out", str(out), "--force")
        assert r.exit_code == 2 and where in r.output, r.output
    assert _tree(build) == before


def test_an_export_refuses_the_current_directory(tmp_path: Path) -> None:
    """Before, `--out .` deleted every file in the working directory, then crashed."""
    build = _build(tmp_path)
    here = tmp_path / "here"
    here.mkdir()
    (here / "notes.txt").write_text("mine\n")
    for out in (".", ".."):
        r = _cli("export", str(build), "--format", "jsonl", "--out", out, cwd=here)
        assert r.exit_code == 2 and "current directory" in r.output, r.output
    empty = tmp_path / "empty"
    empty.mkdir()
    r = _cli("export", str(build), "--format", "jsonl", "--out", ".", cwd=empty)
    assert r.exit_code == 2 and "current directory" in r.output
    assert _tree(here) == {"notes.txt": b"mine\n"} and list(empty.iterdir()) == []


def test_a_re_export_replaces_an_earlier_export_only_of_its_kind_unless_forced(tmp_path: Path) -> None:
    build = _build(tmp_path)
    out = tmp_path / "x"
    r = _cli("export", str(build), "--format", "jsonl", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert read_export_marker(out)["files"] == ["README.md", "train.jsonl"]
    # the same build in the same format: replaced (here with another split)
    r = _cli("export", str(build), "--format", "jsonl", "--out", str(out), "--split", "test=0.5")
    assert r.exit_code == 0, r.output
    assert sorted(_tree(out)) == [EXPORT_MARKER, "README.md", "test.jsonl", "train.jsonl"]
    # another format: refused without --force, naming it; replaced with it
    jsonl = _tree(out)
    r = _cli("export", str(build), "--format", "trl", "--out", str(out))
    assert r.exit_code == 2 and "holds a jsonl export" in r.output and "--force" in r.output
    assert _tree(out) == jsonl
    r = _cli("export", str(build), "--format", "trl", "--out", str(out), "--force")
    assert r.exit_code == 0, r.output
    assert len(datasets.load_from_disk(str(out))["train"]) == 6
    assert read_export_marker(out)["format"] == "trl" and not (out / "train.jsonl").exists()
    # the same format from another build is another export too
    other = _build(tmp_path / "other")
    with pytest.raises(UserError, match="holds a trl export of"):
        export(other, "trl", out)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


_KILLED_MID_EXPORT = """
import importlib, os, signal, sys

e = importlib.import_module("curation.export")

write = e._SplitFiles.write

def write_then_die(self, name, part):  # the process dies after its first rows are written
    write(self, name, part)
    os.kill(os.getpid(), signal.SIGKILL)

e._SplitFiles.write = write_then_die
e.export(sys.argv[1], "jsonl", sys.argv[2], split="test=0.5")
"""


def test_an_export_killed_midway_leaves_the_previous_export_whole(tmp_path: Path) -> None:
    build = _build(tmp_path)
    out = tmp_path / "x"
    export(build, "jsonl", out)
    before = _tree(out)
    proc = subprocess.run([sys.executable, "-c", _KILLED_MID_EXPORT, str(build), str(out)])
    assert proc.returncode == -signal.SIGKILL
    assert _tree(out) == before
    (left,) = [p for p in tmp_path.iterdir() if p.name.startswith(".x.partial-")]
    assert any(left.iterdir())  # it died while writing
    # the next export completes and removes what the killed one left
    export(build, "jsonl", out, split="test=0.5")
    assert (out / "test.jsonl").exists() and not left.exists()
