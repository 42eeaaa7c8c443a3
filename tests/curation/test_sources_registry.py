"""The source registry: parsing --source, options, default paths, hub failures, the CLI table."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import curation.sources as sources
from curation.cli import app
from curation.record_files import write_jsonl
from curation.schema import RecordError
from curation.sources import SOURCES, get_source, iter_source, parse_source_arg
from filters.contracts import UserError

#: The registry's sources by kind, read from it: adding a source edits no list here.
HUB = tuple(name for name, src in SOURCES.items() if src.kind == "hub")


def test_every_registered_source_says_where_its_rows_come_from():
    """A hub source names its hub dataset, a local one its file (the canonical format reads the
    path it is given), the built-in demo neither; the registry's key is the source's name."""
    assert {"demo", "canonical"} <= set(SOURCES) and HUB
    for name, src in SOURCES.items():
        assert src.name == name and src.kind in ("hub", "local", "builtin"), name
        if src.kind == "hub":
            assert "/" in (src.hub_id or "") and src.default_file is None, name
        elif src.kind == "local":
            assert src.hub_id is None and (src.default_file or name == "canonical"), name
        else:
            assert src.hub_id is None and src.default_file is None, name


def test_parse_source_arg_forms(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text("")
    assert parse_source_arg("mbpp") == (SOURCES["mbpp"], None)
    assert parse_source_arg(f"taco:{tmp_path}") == (SOURCES["taco"], str(tmp_path))
    assert parse_source_arg(str(f)) == (SOURCES["canonical"], str(f))


@pytest.mark.parametrize(
    "arg, words",
    [
        ("nosuch", ["unknown source 'nosuch'", "mbpp"]),
        ("nosuch:/tmp", ["unknown source 'nosuch'"]),
        ("taco:", ["empty path", "taco:/path"]),
        ("taco:/definitely/not/here", ["does not exist"]),
        ("/definitely/not/here.jsonl", ["no such file"]),
    ],
)
def test_parse_source_arg_errors_say_what_and_how(arg, words):
    with pytest.raises(UserError) as e:
        parse_source_arg(arg)
    msg = str(e.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg


def test_get_source_unknown_lists_names():
    with pytest.raises(UserError, match="known sources: taco"):
        get_source("tacoo")


def test_unknown_option_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="unknown option"):
        iter_source("mbpp", tmp_path, colour="red")
    with pytest.raises(UserError, match="YYYY-MM-DD"):
        iter_source("lcb", tmp_path, start="last week")


def test_hub_offline_fails_fast_with_a_local_path_hint(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError) as e:
        iter_source("taco")
    msg = str(e.value)
    assert "BAAI/TACO" in msg and "--source taco:/path" in msg and "\n" not in msg


def test_hub_unreachable_endpoint_fails_in_seconds(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # discard port: connection refused
    with pytest.raises(UserError, match="cannot connect"):
        iter_source("codeforces")


def test_missing_default_file_is_a_user_error(monkeypatch, tmp_path):
    monkeypatch.setattr(sources.paths, "data_dirs", lambda: [tmp_path])
    with pytest.raises(UserError, match="mbpp.jsonl.gz not found.*--source mbpp:"):
        iter_source("mbpp")
    with pytest.raises(UserError, match="needs a path"):
        iter_source("canonical")


def test_codemix_data_env_points_local_sources(monkeypatch, tmp_path):
    rows = [{"task_id": 7, "text": "Add one to x.", "code": "def inc(x):\n    return x + 1\n",
             "test_list": ["assert inc(1) == 2"], "test_setup_code": "", "challenge_test_list": []}]  # fmt: skip
    write_jsonl(rows, tmp_path / "mbpp.jsonl.gz")
    monkeypatch.setenv("CODEMIX_DATA", str(tmp_path))
    (rec,) = list(iter_source("mbpp"))
    assert rec["id"] == "7" and rec["entry_point"] == "inc" and rec["source"] == "mbpp"


def test_canonical_file_keeps_row_sources_and_reports_bad_lines(tmp_path):
    good = {"id": "a", "source": "mine", "statement": "s", "test_type": "stdio", "tests": []}
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(good) + "\n{oops\n" + json.dumps({**good, "id": "b"}) + "\n")
    src, p = parse_source_arg(str(path))
    out = list(iter_source(src, p))
    assert [type(o) for o in out] == [dict, RecordError, dict]
    # the bad line is a row of the source its file's rows name (it was a phantom source `canonical`)
    assert out[0]["source"] == "mine" and out[1].partial["source"] == "mine"
    assert len(list(iter_source(src, p, limit=2))) == 2


def test_iteration_streams(tmp_path):
    """The first record comes out before a broken tail line is read (no whole-file load)."""
    path = tmp_path / "c.jsonl"
    row = {"id": "a", "source": "s", "statement": "s", "test_type": "stdio"}
    path.write_text("\n".join(json.dumps({**row, "id": str(i)}) for i in range(1000)) + "\n")
    it = iter_source("canonical", path)
    assert next(it)["id"] == "0"


def test_sources_command_prints_the_table():
    res = CliRunner().invoke(app, ["sources"], env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    for name in ("taco", "BAAI/TACO", "mbpp.jsonl.gz", "codecontests-subset", "demo", "assert"):
        assert name in res.output


def test_sources_command_says_how_each_hub_source_is_read():
    """Every hub source is read through data files (never a loading script), and says which."""
    res = CliRunner().invoke(app, ["sources"], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    hub_lines = [ln for ln in lines if ln.startswith("  hub ")]
    assert len(hub_lines) == len(HUB) and all("(no script)" in ln for ln in hub_lines)
    text = " ".join(lines)
    assert (
        "BAAI/TACO, data files (no script): Parquet files ALL/train-*.parquet, ALL/test-*.parquet"
        in text
    )
    assert (
        "codeparrot/apps, data files (no script): JSON Lines files train.jsonl, test.jsonl" in text
    )
    assert (
        "likaixin/TACO-verified, data files (no script): one JSON array file taco_verified.json, streamed"
        in text
    )
    assert "codeforces: test" in text  # DeepCoder's codeforces config has only a test split


def test_offline_set_after_datasets_was_imported_is_still_honoured(monkeypatch):
    """Bug: huggingface_hub reads HF_HUB_OFFLINE at import, so setting it later went to the network."""
    import datasets  # noqa: F401  (imported before the variable is set, as in a long-lived process)

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError, match="BAAI/TACO"):
        iter_source("taco")


def test_the_sources_page_example_runs(monkeypatch):
    """docs/sources.md's Python example prints what the page says."""
    import contextlib
    import io
    import re
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    page = (repo / "docs" / "sources.md").read_text()
    (block,) = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    monkeypatch.chdir(repo)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "docs/sources.md", "exec"), {})
    printed = out.getvalue().strip()
    assert f"prints `{printed}`" in " ".join(page.split())
