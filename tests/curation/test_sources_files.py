"""Reading sources from files: directories, JSON arrays, empty sources, schema drift, the hub's data files."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.record_files import write_jsonl
from curation.schema import RecordError
from curation.sources import iter_source, parse_source_arg
from filters.contracts import UserError

HUB = Path(__file__).resolve().parents[1] / "fixtures" / "hub"
ROW = {"source": "mine", "statement": "Print 1.", "test_type": "stdio",
       "tests": [{"input": "", "output": "1\n"}], "solutions": ["print(1)"]}  # fmt: skip


def _rows(n: int, start: int = 0) -> list[dict]:
    return [{**ROW, "id": str(i)} for i in range(start, start + n)]


def test_a_directory_source_reads_jsonl_and_parquet_alike(tmp_path):
    """Bug: `--source DIR` read only *.parquet, so a folder of JSONL files gave 0 problems, exit 0."""
    write_jsonl(_rows(2), tmp_path / "a.jsonl")
    write_jsonl(_rows(2, 2), tmp_path / "sub" / "b.jsonl.gz")
    pq.write_table(pa.Table.from_pylist(_rows(1, 4)), tmp_path / "c.parquet")
    src, path = parse_source_arg(str(tmp_path))
    assert src.name == "canonical"
    ids = [r["id"] for r in iter_source(src, path)]
    assert sorted(ids) == ["0", "1", "2", "3", "4"]


@pytest.mark.parametrize("layout", ["empty", "other-files", "empty-files"])
def test_a_source_without_rows_is_an_error_naming_the_path(tmp_path, layout):
    """Bug: an empty directory built '0 problems read, 0 kept' and exited 0."""
    if layout == "other-files":
        (tmp_path / "notes.txt").write_text("not data\n")
    if layout == "empty-files":
        (tmp_path / "a.jsonl").write_text("\n")
        pq.write_table(
            pa.Table.from_pylist([], schema=pa.schema([("id", pa.string())])),
            tmp_path / "b.parquet",
        )
    with pytest.raises(UserError) as e:
        iter_source("canonical", tmp_path)
    msg = str(e.value)
    assert str(tmp_path) in msg and "\n" not in msg
    if layout == "empty-files":
        assert "no rows" in msg and "a.jsonl" in msg
    else:
        assert "no data files" in msg and "*.jsonl" in msg and "*.parquet" in msg


def test_codemix_build_on_an_empty_directory_fails_with_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    res = CliRunner().invoke(app, ["build", "--out", str(tmp_path / "out"), "--source", str(empty)])
    assert res.exit_code == 2
    assert "no data files in this directory" in res.output and "Traceback" not in res.output


def test_codemix_build_on_a_directory_of_jsonl_builds_its_rows(tmp_path):
    write_jsonl(_rows(3), tmp_path / "in" / "part-0.jsonl")
    write_jsonl(_rows(2, 3), tmp_path / "in" / "part-1.jsonl")
    out = tmp_path / "out"
    args = ["build", "--out", str(out), "--source", str(tmp_path / "in"), "--skip", "verify",
            "--skip", "dedup", "--skip", "difficulty"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    assert counts["input"] == {"mine": 5} and counts["output"] == {"mine": 5}


def test_a_json_array_streams_and_a_broken_tail_is_one_rejected_row(tmp_path):
    """The first row comes out before the rest is read; a syntax error ends the file as one RecordError."""
    good = json.dumps(_rows(3))[:-1]
    path = tmp_path / "rows.json"
    path.write_text(good + ", {oops")
    it = iter_source("canonical", path)
    assert next(it)["id"] == "0"
    rest = list(it)
    assert [r["id"] for r in rest[:2]] == ["1", "2"] and isinstance(rest[2], RecordError)
    assert "rows.json" in rest[2].message and "invalid JSON" in rest[2].message and len(rest) == 3


def test_json_arrays_gzipped_and_json_lines_in_a_json_file(tmp_path):
    with gzip.open(tmp_path / "a.json.gz", "wt") as f:
        json.dump(_rows(2), f, indent=2)
    (tmp_path / "b.json").write_text("\n".join(json.dumps(r) for r in _rows(2, 2)) + "\n")
    assert [r["id"] for r in iter_source("canonical", tmp_path)] == ["0", "1", "2", "3"]


def _retyped_taco(tmp_path: Path, change: str) -> Path:
    rows = pq.read_table(HUB / "taco" / "ALL" / "train-00000-of-00001.parquet").to_pylist()
    for r in rows:
        if change == "retype":
            r["input_output"] = {"inputs": ["1\n"], "outputs": ["1\n"]}
        else:
            r["prompt"] = r.pop("question")
    path = tmp_path / "ALL" / "train-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


@pytest.mark.parametrize("change", ["retype", "rename"])
def test_a_changed_hub_schema_stops_before_any_row(tmp_path, change):
    """A renamed or retyped column is one clear line naming dataset, column, expected and found."""
    path = _retyped_taco(tmp_path, change)
    with pytest.raises(UserError) as e:
        iter_source("taco", tmp_path)
    msg = str(e.value)
    assert msg.startswith(f"taco: {path}: column ") and "\n" not in msg
    if change == "retype":
        assert "column 'input_output': expected string, found struct" in msg
    else:
        assert "column 'question': expected string, found no such column" in msg


def test_a_changed_schema_in_a_json_file_is_caught_on_its_first_row(tmp_path):
    rows = [json.loads(line) for line in (HUB / "apps" / "train.jsonl").read_text().splitlines()]
    rows[0]["solutions"] = {"python": rows[0]["solutions"]}
    write_jsonl(rows, tmp_path / "train.jsonl")
    with pytest.raises(
        UserError,
        match=r"apps: .*train.jsonl: column 'solutions': expected string or list<string>, found struct",
    ):
        iter_source("apps", tmp_path)


def test_columns_accept_nulls_ints_for_floats_and_empty_lists():
    from curation.sources.columns import Columns

    cols = Columns(required={"a": ("string",)}, optional={"b": ("float",), "c": ("list<string>",)})
    assert cols.mismatch({"a": "null", "b": "int", "c": "list<null>", "extra": "struct"}) is None
    assert (
        cols.mismatch({"a": "string", "b": "string"}) == "column 'b': expected float, found string"
    )


def _hub_copy(tmp_path: Path, repo: str, files: dict[str, Path]) -> Path:
    """A directory laid out as `<owner>/<name>/<file>`, standing in for hf://datasets."""
    for name, src in files.items():
        dst = tmp_path / repo / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dst)
    return tmp_path


@pytest.fixture
def local_hub(monkeypatch, tmp_path):
    """The hub read from a local folder: the same `load_dataset(builder, data_files=...)` code path."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("curation.sources.hub.HUB_URL", str(tmp_path))
    return tmp_path


def test_taco_and_apps_load_from_the_hub_through_data_files_not_scripts(local_hub):
    """Bug: both were loaded by repository name, which runs their loading scripts: refused by datasets >= 4."""
    _hub_copy(local_hub, "BAAI/TACO", {
        "TACO.py": HUB / "apps" / "train.jsonl",  # a loading script beside the data must not matter
        "ALL/train-00000-of-00001.parquet": HUB / "taco" / "ALL" / "train-00000-of-00001.parquet",
        "ALL/test-00000-of-00001.parquet": HUB / "taco" / "ALL" / "test-00000-of-00001.parquet",
    })  # fmt: skip
    _hub_copy(local_hub, "codeparrot/apps", {"train.jsonl": HUB / "apps" / "train.jsonl"})
    taco = list(iter_source("taco"))
    assert len(taco) == 8 and taco[0]["tests"][1] == {"input": "5 7\n", "output": "12\n"}
    assert len(list(iter_source("taco", split="test"))) == 1
    apps = [r for r in iter_source("apps") if isinstance(r, dict)]
    assert [r["id"] for r in apps] == ["4001", "4002", "4003", "4004"]
    with pytest.raises(UserError, match="has no split 'valid'; splits: train, test"):
        iter_source("apps", split="valid")


def test_taco_verified_streams_its_json_array_from_the_hub(local_hub):
    _hub_copy(
        local_hub,
        "likaixin/TACO-verified",
        {"taco_verified.json": HUB / "taco-verified" / "taco_verified.json"},
    )
    out = list(iter_source("taco-verified"))
    assert len(out) == 8 and out[0]["solutions"][0].startswith("a, b = map")


def test_hub_data_files_with_a_changed_schema_stop_before_any_row(local_hub, tmp_path):
    path = _retyped_taco(tmp_path / "x", "retype")
    _hub_copy(local_hub, "BAAI/TACO", {"ALL/train-00000-of-00001.parquet": path})
    with pytest.raises(
        UserError,
        match=r"^taco: BAAI/TACO split train: column 'input_output': expected string, found struct",
    ):
        iter_source("taco")


def test_open_data_files_checks_datasets_features(tmp_path):
    from curation.sources.hub import open_data_files

    seen = []
    rows = open_data_files(
        "parquet", [str(HUB / "code_contests" / "train-00000-of-00001.parquet")], "train", "cc",
        lambda label, found: seen.append((label, found["public_tests"], found["cf_tags"])),
    )  # fmt: skip
    assert seen == [("cc", "struct", "list<string>")]  # checked before the first row is read
    assert len(list(rows)) == 3


LIGHT = ["--skip", "amplify", "--skip", "verify", "--skip", "dedup", "--skip", "difficulty"]


def _with_a_truncated_line(path: Path, rows: list[dict], at: int) -> Path:
    """`rows` as JSONL with a truncated copy of row `at` inserted before it (line `at + 1`)."""
    lines = [json.dumps(r) for r in rows]
    lines.insert(at, lines[at][: len(lines[at]) // 2])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_line_that_does_not_parse_is_one_rejected_row_of_its_files_source(tmp_path):
    """Before: "11 problems read, 10 kept", then `error: source canonical: none of its 1 rows fits
    the record schema`, exit 1: the unparsable line had no `source` and became a phantom source."""
    path = _with_a_truncated_line(tmp_path / "c.jsonl", _rows(10), at=4)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["build", "--source", str(path), "--out", str(out), *LIGHT])
    assert res.exit_code == 0, res.output
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    assert counts["input"] == {"mine": 11} and counts["output"] == {"mine": 10}
    (bad,) = pq.read_table(out / "rejected").to_pylist()
    assert (bad["source"], bad["reject_stage"], bad["reject_reason"]) == ("mine", "schema", "malformed:json")
    detail = json.loads(bad["reject_detail"])
    assert detail["file"] == str(path) and detail["line"] == 5
    assert f"{path}:5: not valid JSON" in detail["error"]


def test_codemix_verify_skips_the_same_line_and_says_where(tmp_path):
    path = _with_a_truncated_line(tmp_path / "c.jsonl", _rows(10), at=4)
    res = CliRunner().invoke(app, ["verify", str(path), "--out", str(tmp_path / "v.jsonl"), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert f"skipped a malformed row: json: {path}:5: not valid JSON" in " ".join(res.output.split())
    assert "1 malformed row(s) skipped" in res.output
    results = [json.loads(x) for x in (tmp_path / "v.jsonl").read_text().splitlines()]
    assert len(results) == 10 and {r["verdict"] for r in results} == {"AC"}


def test_a_broken_line_takes_the_source_its_own_files_rows_name(tmp_path):
    """In a directory of canonical files each file's broken line counts against that file's source,
    also when it comes before any good row; a registry source's broken line is that source's."""
    first = [{**r, "source": "alpha"} for r in _rows(3)]
    second = [{**r, "source": "beta"} for r in _rows(3)]
    _with_a_truncated_line(tmp_path / "in" / "a.jsonl", first, at=2)
    _with_a_truncated_line(tmp_path / "in" / "b.jsonl", second, at=0)
    items = list(iter_source("canonical", tmp_path / "in"))
    errors = [e for e in items if isinstance(e, RecordError)]
    assert [(e.partial["source"], e.where["line"]) for e in errors] == [("alpha", 3), ("beta", 1)]
    assert [r["source"] if isinstance(r, dict) else "x" for r in items] == ["alpha"] * 2 + ["x", "alpha", "x"] + ["beta"] * 3
    (err,) = [e for e in iter_source("mbpp", tmp_path / "in" / "b.jsonl") if isinstance(e, RecordError) and "line" in e.where]
    assert err.partial["source"] == "mbpp" and err.where["line"] == 1
