"""Whole builds through the command line: outputs, manifest, determinism, resume rules, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.record_files import write_jsonl
from curation.store import read_manifest
from filters.settings import DecontamConfig

runner = CliRunner()
LIGHT = ["--skip", "amplify", "--skip", "verify", "--skip", "dedup", "--skip", "difficulty"]


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
    rows.append(
        {
            "id": "bad",
            "source": "toy",
            "statement": "x",
            "test_type": "call",
            "entry_point": "f",
            "tests": [{"input": "not json", "output": "1"}],
        }
    )
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
    assert (
        "call input must be a JSON array"
        in next(r for r in rej if r["reject_stage"] == "schema")["reject_detail"]
    )
    assert not (out / ".work").exists()
    assert (out / "report" / "index.html").exists()
    shard = pq.read_table(out / "problems" / "part-00000.parquet")
    assert "_row" not in shard.column_names and shard.column("problem_id")[0].as_py() == "toy/sum0"


def test_same_input_gives_identical_shards(tmp_path):
    src = corpus(tmp_path / "toy.jsonl")
    sums = []
    for name in ("a", "b"):
        assert (
            build(
                "--source",
                str(src),
                "--out",
                str(tmp_path / name),
                "--batch-rows",
                "3" if name == "a" else "7",
                *LIGHT,
            ).exit_code
            == 0
        )
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
    assert (
        build(
            "--source", str(src), "--out", str(out), "--shard-rows", "3", "--force", *LIGHT
        ).exit_code
        == 0
    )
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
    r = runner.invoke(app, ["info", str(tmp_path)])  # it holds a build, and is none
    assert r.exit_code == 2 and "is not a codemix build" in r.output


def _benchmark_copies(path: Path) -> Path:
    """Three training rows that are evaluation problems (HumanEval/2, MBPP task 11, a CodeContests
    test problem), as shipped in filters/data, plus two clean ones."""
    import gzip

    from filters.stages.decontam.references import DATA_DIR

    def first(name: str, pred) -> dict:
        with gzip.open(DATA_DIR / name, "rt") as f:
            return next(r for r in map(json.loads, f) if pred(r))

    he = first("HumanEval.jsonl.gz", lambda r: r["task_id"] == "HumanEval/2")
    mbpp = first("mbpp-test.jsonl.gz", lambda r: r["task_id"] == 11)
    cc = first("codecontests-test.jsonl.gz", lambda r: True)
    rows = [
        {"id": "he", "statement": he["prompt"]},
        {"id": "mbpp", "statement": mbpp["text"] + " Use a loop."},
        {"id": "cc", "statement": "Solve this one.\n" + cc["statement"]},
        {"id": "clean1", "statement": "Read two numbers and print their product."},
        {"id": "clean2", "statement": "Read a word and print it reversed."},
    ]
    for r in rows:
        r.update(
            source="toy",
            test_type="stdio",
            tests=[{"input": "", "output": "1\n"}],
            solutions=["print(1)"],
        )
    write_jsonl(rows, path)
    return path


def test_a_build_decontaminates_against_the_shipped_benchmarks_by_default(tmp_path):
    src = _benchmark_copies(tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    r = build("--source", str(src), "--out", str(out), *LIGHT)
    assert r.exit_code == 0, r.output
    assert "decontaminated against: humaneval, mbpp-test, codecontests-test" in r.output
    m = read_manifest(out)
    assert m["counts"]["output"] == {"toy": 2}
    rej = {
        row["problem_id"]: row["reject_reason"]
        for row in pq.read_table(out / "rejected").to_pylist()
    }
    assert rej == {
        "toy/he": "contaminated:humaneval:HumanEval/2",
        "toy/mbpp": "contaminated:mbpp-test:11",
        "toy/cc": "contaminated:codecontests-test:test-000",
    }
    against = {d["name"]: d for d in m["decontamination"]}
    assert list(against) == ["humaneval", "mbpp-test", "codecontests-test"]
    assert [against[n]["problems"] for n in against] == [164, 500, 165]
    assert all(d["shipped"] and len(d["sha256"]) == 64 and d["licence"] for d in against.values())


def test_no_decontaminate_keeps_them_and_the_stages_say_so(tmp_path):
    src = _benchmark_copies(tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    r = build("--source", str(src), "--out", str(out), "--no-decontaminate", *LIGHT)
    assert r.exit_code == 0, r.output
    assert "decontaminated against: nothing" in r.output
    m = read_manifest(out)
    assert m["counts"]["output"] == {"toy": 5} and m["decontamination"] == []
    assert m["config"]["stages"] == ["exact_id"]  # the configured stages are the ones in the funnel
    assert [s["stage"] for s in m["counts"]["stages"]] == ["schema", *m["config"]["stages"]]
    r = build("--source", str(src), "--out", str(tmp_path / "o2"), "--no-decontaminate",
              "--decontaminate-against", "humaneval")  # fmt: skip
    assert r.exit_code == 2 and "not both" in r.output
    r = build("--source", str(src), "--out", str(tmp_path / "o3"), "--skip", "decontam", *LIGHT)
    assert (
        r.exit_code == 0 and read_manifest(tmp_path / "o3")["config"]["decontam"]["against"] == []
    )
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        f'[build]\nstages = ["exact_id", "decontam"]\n[[source]]\nname = "canonical"\npath = "{src}"\n'
    )
    r = build("--recipe", str(recipe), "--out", str(tmp_path / "o4"), "--no-decontaminate")
    assert r.exit_code == 0, r.output  # the command line wins over the recipe
    m = read_manifest(tmp_path / "o4")
    assert m["config"]["stages"] == ["exact_id"] and m["counts"]["output"] == {"toy": 5}


def test_a_refused_rebuild_names_the_options_that_differ(tmp_path):
    src = corpus(tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    assert build("--source", str(src), "--out", str(out), *LIGHT).exit_code == 0
    r = build("--source", str(src), "--out", str(out), "--shard-rows", "3", "--ngram", "9", *LIGHT)
    assert r.exit_code == 2
    assert "--shard-rows: 10000 -> 3" in r.output and "--ngram: 13 -> 9" in r.output
    assert "--min-tests" not in r.output


def test_a_source_mostly_dropped_gets_a_note_naming_the_option(shared_data, tmp_path):
    """Real data: the first 40 MBPP tasks are 30 of MBPP's test split (decontam) and 10 with three
    asserts each, which amplification makes strong enough to keep (too_few_tests at --min-tests 5
    without it). The build says so, with the options."""
    args = ["--source", f"mbpp:{shared_data / 'mbpp.jsonl.gz'}", "--limit", "40",
            "--skip", "dedup", "--skip", "difficulty"]  # fmt: skip
    r = build(*args, "--out", str(tmp_path / "out"))
    assert r.exit_code == 0, r.output
    note = next(line for line in r.output.splitlines() if line.startswith("note: mbpp:"))
    assert note.startswith("note: mbpp: 10 of 40 kept. decontam dropped 30 as contaminated")
    assert "mbpp-test 30" in note and "--no-decontaminate" in note and "verify" not in note
    r = build(*args, "--skip", "amplify", "--out", str(tmp_path / "plain"))
    assert r.exit_code == 1, r.output  # nothing kept: the notes say why, and the exit says so
    assert "error: the build kept no problems" in r.output
    note = next(line for line in r.output.splitlines() if line.startswith("note: mbpp:"))
    assert note.startswith("note: mbpp: 0 of 40 kept. decontam dropped 30 as contaminated")
    assert (
        "verify dropped 10 as too_few_tests (all have 3 tests, --min-tests is 5: --min-tests 3 admits them"
        in note
    )
    (stored,) = read_manifest(tmp_path / "plain")["notes"]
    assert stored["source"] == "mbpp" and [d["rows"] for d in stored["dropped"]] == [30, 10]


def test_livecodebench_by_release_date_from_a_local_file(tmp_path):
    """LiveCodeBench is not shipped: a local code_generation_lite file, problems picked by date."""
    lcb = tmp_path / "lcb.jsonl"
    old = "Given a string of digits, count the substrings whose digit sum is divisible by three, modulo one billion and seven."
    new = "Given a grid of lowercase letters, count the paths from the top left corner that spell a palindrome when read aloud."
    write_jsonl(
        [
            {"question_id": "old1", "question_content": old, "contest_date": "2024-03-01T00:00:00", "public_test_cases": "[]"},
            {"question_id": "new1", "question_content": new, "contest_date": "2024-09-01T00:00:00", "public_test_cases": "[]"},
        ],
        lcb,
    )  # fmt: skip
    rows = [{"id": k, "source": "toy", "statement": text, "test_type": "stdio", "tests": [{"input": "", "output": "1\n"}],
             "solutions": ["print(1)"]} for k, text in (("a", old), ("b", new))]  # fmt: skip
    write_jsonl(rows, tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    r = build("--source", str(tmp_path / "toy.jsonl"), "--out", str(out), "--decontaminate-against", "shipped",
              "--decontaminate-against", f"lcb={lcb}", "--lcb-start", "2024-08-01", *LIGHT)  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "decontaminated against: humaneval, mbpp-test, codecontests-test, lcb" in r.output
    rej = {
        row["problem_id"]: row["reject_reason"]
        for row in pq.read_table(out / "rejected").to_pylist()
    }
    assert rej == {"toy/b": "contaminated:lcb:new1"}
    m = read_manifest(out)
    assert m["config"]["decontam"]["lcb_start"] == "2024-08-01"
    assert [(d["name"], d["problems"], d["shipped"]) for d in m["decontamination"]][-1] == (
        "lcb",
        1,
        False,
    )


def test_the_manifest_counts_benchmark_problems_through_the_stage():
    """`_decontamination` reads the decontam stage's `benchmark_sizes()`, not an attribute by
    name (a getattr with a default of [] would have reported 0 problems with no error)."""
    from curation.build import BuildConfig, _decontamination
    from filters.stages.decontam.stage import DecontamStage

    stage = DecontamStage(DecontamConfig(against=["humaneval"]))
    assert stage.benchmark_sizes() == {"humaneval": 164}
    cfg = BuildConfig(sources=[])
    cfg.decontam.against = ["humaneval"]
    (entry,) = _decontamination(cfg, [stage])
    assert entry["name"] == "humaneval" and entry["problems"] == 164
    assert _decontamination(cfg, []) == []
