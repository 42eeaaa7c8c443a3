"""The command line a new user meets: --version, flags shown as flags, recipes, diff, tables when piped."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from curation.cli import app
from tests.curation.test_build import LIGHT, _benchmark_copies, corpus

runner = CliRunner()


def test_version():
    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and re.fullmatch(r"codemix \S+\n", r.output)


def test_boolean_options_are_shown_as_flags():
    r = runner.invoke(app, ["build", "--help"])
    assert r.exit_code == 0
    for flag in ("--force", "--log-json", "--no-decontaminate"):
        line = next(line for line in r.output.splitlines() if line.strip().startswith(flag))
        assert "<bool>" not in line and "bool" not in line.split()[1], line
    assert "<bool>" not in r.output and "<list[str]>" not in r.output
    assert re.search(r"--source SOURCE\b", r.output) and re.search(r"--skip STAGE\b", r.output)


def test_recipes_lists_the_shipped_ones_and_prints_one():
    r = runner.invoke(app, ["recipes"])
    assert r.exit_code == 0
    assert re.search(r"deepcoder\s+.*taco-verified, primeintellect, lcb", r.output)
    assert re.search(r"demo\s+.*demo", r.output)
    r = runner.invoke(app, ["recipes", "demo"])
    assert r.exit_code == 0 and '[[source]]\nname = "demo"' in r.output
    r = runner.invoke(app, ["recipes", "nope"])
    assert r.exit_code == 2 and "deepcoder, demo" in r.output


def test_info_tables_are_whole_when_piped(tmp_path):
    """Off a terminal rich assumed 80 columns: an 8-column table came out as `exact_…` and `decont…`."""
    src = corpus(tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    assert (
        runner.invoke(app, ["build", "--source", str(src), "--out", str(out), *LIGHT]).exit_code
        == 0
    )
    r = runner.invoke(app, ["info", str(out)])
    assert r.exit_code == 0 and "…" not in r.output
    header = next(line for line in r.output.splitlines() if "source" in line and "input" in line)
    assert re.search(r"source\s.*input\s.*schema\s.*exact_id\s.*decontam", header), header
    assert re.search(
        r"exact_id\s.*duplicate_id\s.*toy\s.*1", r.output
    )  # reasons have a source column


def test_diff_shows_counts_added_removed_and_changed_reasons(tmp_path):
    src = _benchmark_copies(tmp_path / "toy.jsonl")
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    assert (
        runner.invoke(app, ["build", "--source", str(src), "--out", str(a), *LIGHT]).exit_code == 0
    )
    assert runner.invoke(app, ["build", "--source", str(src), "--out", str(b), "--no-decontaminate",
                               *LIGHT]).exit_code == 0  # fmt: skip
    rows = [json.loads(line) for line in src.read_text().splitlines()]
    rows[0]["test_type"] = "nope"  # `he` becomes malformed: dropped by schema, not decontam
    rows.append({**rows[-1], "id": "extra", "statement": "Read a number and print its square."})
    src2 = tmp_path / "toy2.jsonl"
    src2.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert (
        runner.invoke(app, ["build", "--source", str(src2), "--out", str(c), *LIGHT]).exit_code == 0
    )

    r = runner.invoke(app, ["diff", str(a), str(b), "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert [x["problem_id"] for x in d["changes"]["added"]] == ["toy/cc", "toy/he", "toy/mbpp"]
    assert d["changes"]["added"][0] == {
        "problem_id": "toy/cc",
        "a": "decontam:contaminated",
        "b": "kept",
    }
    toy = {x["stage"]: (x["a"], x["b"]) for x in d["counts"] if x["source"] == "toy"}
    assert toy["input"] == (5, 5) and toy["exact_id"] == (5, 5) and toy["decontam"] == (2, None)

    r = runner.invoke(app, ["diff", str(a), str(c), "--json"])
    ch = json.loads(r.output)["changes"]
    assert ch["changed_reason"] == [
        {"problem_id": "toy/he", "a": "decontam:contaminated", "b": "schema:malformed"}
    ]
    assert ch["only_in_b"] == [{"problem_id": "toy/extra", "a": None, "b": "kept"}]
    assert ch["removed"] == [] and ch["added"] == []

    r = runner.invoke(app, ["diff", str(b), str(a)])
    assert r.exit_code == 0
    assert "0 added (kept in B only), 3 removed (kept in A only)" in r.output
    assert re.search(r"toy/he[\s│]+kept[\s│]+decontam:contaminated", r.output)
    assert re.search(r"toy[\s│]+5[\s│]+5[\s│]+5[\s│]+- -> 2[\s│]", r.output), r.output
    r = runner.invoke(app, ["diff", str(a), str(tmp_path)])
    assert r.exit_code == 2 and "no manifest.json" in r.output


def test_a_build_that_keeps_nothing_or_reads_a_wrong_schema_fails(tmp_path):
    """A source whose every row misses the record schema (the wrong source type for the file) and a
    build that keeps nothing both exit 1 naming why; the output is still written for inspection.
    Before, both exited 0 with only a note."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"foo": 1}\n{"bar": 2}\n')
    r = runner.invoke(app, ["build", "--source", str(bad), "--out", str(tmp_path / "a"), *LIGHT])
    assert r.exit_code == 1, r.output
    assert "source canonical: none of its 2 rows fits the record schema" in r.output
    assert "the build kept no problems" in r.output
    assert (tmp_path / "a" / "manifest.json").exists()
    again = runner.invoke(
        app, ["build", "--source", str(bad), "--out", str(tmp_path / "a"), *LIGHT]
    )
    assert again.exit_code == 1 and "already holds this build" in again.output
    # one good source does not hide a bad one
    good = corpus(tmp_path / "good.jsonl", n=3)
    r = runner.invoke(app, ["build", "--source", str(good), "--source", f"mbpp:{bad}",
                            "--out", str(tmp_path / "b"), *LIGHT])  # fmt: skip
    assert r.exit_code == 1, r.output
    assert "source mbpp: none of its 2 rows" in r.output and "kept no problems" not in r.output
    r = runner.invoke(app, ["build", "--source", str(good), "--out", str(tmp_path / "c"), *LIGHT])
    assert r.exit_code == 0, r.output


def test_commands_on_a_directory_that_is_not_a_build_say_what_it_is(tmp_path):
    """Before, `export`, `info` and `query` on any directory without a manifest said "the build is
    unfinished; run codemix build on it again", which the build then refused."""
    src = corpus(tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    assert runner.invoke(app, ["build", "--source", str(src), "--out", str(out), *LIGHT]).exit_code == 0
    exported = tmp_path / "exported"
    assert runner.invoke(app, ["export", str(out), "--format", "jsonl", "--out", str(exported)]).exit_code == 0
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "notes.txt").write_text("mine\n")
    unfinished = tmp_path / "unfinished"
    (unfinished / ".work").mkdir(parents=True)
    commands = (["info"], ["query", "SELECT 1"], ["export", "--format", "trl", "--out", str(tmp_path / "t")],
                ["diff", str(out)])  # fmt: skip
    for directory, says in ((plain, f"{plain} is not a codemix build (no manifest.json)"),
                            (exported, f"{exported} is a jsonl export of the build {out}, not a build"),
                            (unfinished, "rerun the same `codemix build` command to resume it")):  # fmt: skip
        for cmd in commands:
            r = runner.invoke(app, [cmd[0], str(directory), *cmd[1:]])
            assert r.exit_code == 2 and says in " ".join(r.output.split()), (cmd, r.output)
            assert "unfinished" not in r.output or directory == unfinished


def test_a_build_that_fails_at_its_start_leaves_nothing_behind(tmp_path):
    """Before, an empty source file (exit 2) left OUT/.work, and the corrected command was refused
    as "an unfinished build with another configuration ... pass --force"."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    good = corpus(tmp_path / "good.jsonl")
    out = tmp_path / "out"
    r = runner.invoke(app, ["build", "--source", str(empty), "--out", str(out), *LIGHT])
    assert r.exit_code == 2 and "no rows" in r.output, r.output
    assert not out.exists()
    out.mkdir()  # an --out that was there already stays, empty
    r = runner.invoke(app, ["build", "--source", str(good), "--source", str(empty), "--out", str(out), *LIGHT])
    assert r.exit_code == 2 and list(out.iterdir()) == []
    # a start killed before it finished any unit: the corrected command starts over without --force
    (out / ".work").mkdir()
    (out / ".work" / "config.json").write_text(json.dumps({"sources": [{"name": "canonical", "path": str(empty)}]}))
    r = runner.invoke(app, ["build", "--source", str(good), "--out", str(out), *LIGHT])
    assert r.exit_code == 0, r.output


_WITHOUT_RAY = """
import sys

sys.modules["ray"] = None  # `import ray` fails, as where the extra is not installed
from curation.cli import main

sys.argv = ["codemix", *sys.argv[1:]]
main()
"""


def test_messages_print_brackets_as_they_are(tmp_path):
    """Rich read user text as markup: `--executor ray` without Ray printed `pip install 'codemix'`."""
    import subprocess
    import sys

    out = tmp_path / "o[1]"
    r = subprocess.run([sys.executable, "-c", _WITHOUT_RAY, "build", "--executor", "ray", "--out", str(out),
                        "--limit", "2"], capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 2 and r.stderr == "error: --executor ray needs Ray: pip install 'codemix[ray]'\n"
    assert not out.exists()
    r = runner.invoke(app, ["build", "--source", "nope[bold]", "--out", str(out)])
    assert r.exit_code == 2 and "unknown source 'nope[bold]'" in r.output
    src = corpus(tmp_path / "toy[x].jsonl")
    r = runner.invoke(app, ["build", "--source", str(src), "--out", str(out), *LIGHT])
    assert r.exit_code == 0 and f"built {out}: 14 problems read" in r.output
    r = runner.invoke(app, ["query", str(out), "SELECT '[red]a[i][/red]' AS s"])
    assert r.exit_code == 0 and "[red]a[i][/red]" in r.output
    r = runner.invoke(app, ["info", str(out)])
    assert r.exit_code == 0 and f"{out}:problemspersource" in "".join(r.output.split())  # a title, wrapped
    r = runner.invoke(app, ["export", str(out), "--format", "jsonl", "--out", str(tmp_path / "e[2]")])
    assert r.exit_code == 0 and f"to {tmp_path / 'e[2]'} (train=" in r.output


def test_query_is_read_only(tmp_path, monkeypatch):
    """Before, `codemix query OUT "COPY ... TO 'file'"` wrote the file."""
    src = corpus(tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    assert runner.invoke(app, ["build", "--source", str(src), "--out", str(out), *LIGHT]).exit_code == 0
    monkeypatch.chdir(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    for sql, kind in (("COPY problems TO 'copy.parquet'", "COPY"),
                      ("SELECT 1; COPY (SELECT 1) TO 'two.csv'", "COPY"),
                      ("EXPLAIN ANALYZE COPY (SELECT 1) TO 'explained.csv'", "EXPLAIN"),
                      ("CREATE TABLE t AS SELECT * FROM problems", "CREATE"),
                      (f"ATTACH '{tmp_path / 'new.db'}' AS db", "ATTACH")):  # fmt: skip
        r = runner.invoke(app, ["query", str(out), sql])
        assert r.exit_code == 2 and f"read-only: only SELECT statements run, not {kind}" in r.output, r.output
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    r = runner.invoke(app, ["query", str(out), "DESCRIBE problems", "--json"])
    assert r.exit_code == 0 and '"column_name": "problem_id"' in r.output
