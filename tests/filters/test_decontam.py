"""Decontamination against benchmarks: n-gram, test and solution overlap, with the matched span."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from filters.contracts import UserError
from filters.settings import DecontamConfig
from filters.stages.decontam import references as decontam_refs
from filters.stages.decontam.references import BenchmarkProblem, load_benchmark
from filters.stages.decontam.stage import DecontamStage, normalize_code, normalize_test
from tests.conftest import shared_file


@pytest.fixture(scope="module")
def humaneval_stage() -> DecontamStage:
    return DecontamStage(DecontamConfig(against=["humaneval"]))


def _he(task: int) -> dict[str, Any]:
    path = decontam_refs.DATA_DIR / "HumanEval.jsonl.gz"
    with gzip.open(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r["task_id"] == f"HumanEval/{task}":
                return r
    raise KeyError(task)


def row(pid: str, statement: str, **extra: Any) -> dict[str, Any]:
    r = {"problem_id": pid, "statement": statement, "tests": [], "solutions": [], "test_code": None}
    r.update(extra)
    return r


def test_humaneval_ships_with_the_package() -> None:
    probs = load_benchmark("humaneval")
    assert len(probs) == 164
    assert probs[0].id == "HumanEval/0" and probs[0].entry_point == "has_close_elements"


def test_ngram_overlap_rejects_with_span(humaneval_stage: DecontamStage) -> None:
    doc = _he(0)["prompt"].split('"""')[1]  # the docstring alone, inside other text
    r = row("x/1", "Here is a task for you.\n" + doc + "\nWrite it in Python, please.")
    d = humaneval_stage.judge_rows([r])[0]
    assert not d.keep
    assert d.reason == "contaminated:humaneval:HumanEval/0"
    assert d.detail["kind"] == "ngram"
    assert "closer to each other than" in d.detail["matched_span"]
    assert "Write it in Python" not in d.detail["matched_span"]


def test_ngram_size_is_configurable() -> None:
    probs = [
        BenchmarkProblem(
            "toy",
            "1",
            "compute the longest increasing subsequence of the given array of integers quickly",
        )
    ]
    r = row("a/1", "Please compute the longest increasing subsequence now.")
    assert DecontamStage(DecontamConfig(against=[], ngram=13, min_coverage=0.0), problems=probs).judge_rows([r])[0].keep
    d = DecontamStage(DecontamConfig(against=[], ngram=4, min_coverage=0.0), problems=probs).judge_rows([r])[0]
    assert (
        d.reason == "contaminated:toy:1"
        and d.detail["matched_span"] == "compute the longest increasing subsequence"
    )


def test_a_shared_phrase_is_not_contamination_a_covered_statement_is() -> None:
    """Coverage of the benchmark statement, not one shared n-gram, decides (default: half)."""
    stock = "The first line contains two integers n and m, the number of vertices and edges of the graph"
    task = (
        "Count the bridges of an undirected graph: an edge is a bridge when removing it splits the "
        "graph into more connected parts than before. Self loops never count, parallel edges never do."
    )
    bench = [BenchmarkProblem("toy", "1", f"{task} {stock}. Print the count.")]
    stage = DecontamStage(DecontamConfig(against=[], ngram=8), problems=bench)
    assert stage.judge_rows([row("a/1", f"Find a shortest path between two vertices. {stock}.")])[
        0
    ].keep
    d = stage.judge_rows([row("a/2", f"Here is a task. {task} {stock}.")])[0]
    assert d.reason == "contaminated:toy:1" and d.detail["kind"] == "ngram"
    assert (
        not DecontamStage(DecontamConfig(against=[], ngram=8, min_coverage=0.0), problems=bench)
        .judge_rows([row("a/1", f"Find a shortest path between two vertices. {stock}.")])[0]
        .keep
    )


def test_contest_boilerplate_does_not_flag_real_training_problems(shared_data) -> None:
    """Real data: CodeContests training problems against the shipped CodeContests test split
    (one shared 13-gram flagged 107 of these 300), and MBPP's own test split caught in MBPP."""
    from curation.sources import iter_source

    stage = DecontamStage(DecontamConfig(against=["codecontests-test", "mbpp-test"]))
    cc = [r for r in iter_source("codecontests-subset") if isinstance(r, dict)]
    dropped = [d for d in stage.judge_rows(cc) if not d.keep]
    assert len(dropped) <= 3, [d.reason for d in dropped]
    mbpp = [r for r in iter_source("mbpp") if isinstance(r, dict)]
    decisions = stage.judge_rows(mbpp)
    test_split = [d for r, d in zip(mbpp, decisions) if 11 <= int(r["id"]) <= 510]
    assert all(not d.keep and d.reason.startswith("contaminated:mbpp-test:") for d in test_split)
    assert sum(not d.keep for d in decisions) == 510  # and 10 near-copies from MBPP's other splits


def test_boilerplate_ngrams_are_ignored() -> None:
    boiler = "Please complete the following python code precisely and return only the code block"
    probs = [
        BenchmarkProblem("toy", str(i), f"{boiler}. Task {i}: item{i} thing{i}.") for i in range(12)
    ]
    stage = DecontamStage(DecontamConfig(against=[], ngram=8, max_df=10), problems=probs)
    assert stage.judge_rows([row("a/1", boiler + ". Sort a list of names by length.")])[0].keep


def test_same_tests_with_renamed_function(humaneval_stage: DecontamStage) -> None:
    he = _he(2)
    test = he["test"].replace("candidate", he["entry_point"])
    r = row(
        "y/1",
        "Return the fractional part of a positive float.",
        test_code=test,
        entry_point=he["entry_point"],
    )
    d = humaneval_stage.judge_rows([r])[0]
    assert d.reason == "contaminated:humaneval:HumanEval/2" and d.detail["kind"] == "tests"
    assert "assertf(" in d.detail["matched_span"]


def test_same_solution(humaneval_stage: DecontamStage) -> None:
    he = _he(5)
    code = he["prompt"] + he["canonical_solution"]
    code = code.replace("\n", "\n\n# a comment\n", 1)
    r = row("z/1", "Insert a delimiter between numbers.", solutions=["pass", code])
    d = humaneval_stage.judge_rows([r])[0]
    assert d.reason == "contaminated:humaneval:HumanEval/5" and d.detail["kind"] == "solution"


def test_clean_rows_are_kept_with_null_column(humaneval_stage: DecontamStage) -> None:
    rows = [row("c/1", "Given a tree with n nodes, print the diameter."), row("c/2", "")]
    table = pa.Table.from_pylist(rows)
    res = humaneval_stage.process(table)
    assert res.dropped.num_rows == 0
    assert res.kept.column("contaminated_by").to_pylist() == [None, None]
    assert humaneval_stage.config()["benchmark_problems"] == 164


def test_normalisers() -> None:
    assert normalize_test("assert candidate(1, 2) == 30\nprint(1)") == ["assertf(1,2)==30"]
    assert normalize_test("  assert add_two( [1, 2] ) == 3", "add_two") == ["assertf([1,2])==3"]
    assert normalize_test("assert abs(add_two(1.5, 2) - 3.5) < 1e-6") == [
        "assertabs(f(1.5,2)-3.5)<1e-6"
    ]
    assert normalize_test("def check(g):\n    assert g([1, 2]) == [2, 1]\n") == [
        "assertf([1,2])==[2,1]"
    ]
    assert normalize_test("1 2\n") == []  # too short to mean anything
    assert normalize_code("def f():\n\n    # hi\n    return   1\n") == "def f():\nreturn 1"


def test_unknown_names_and_missing_files_are_user_errors(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(UserError, match="unknown benchmark"):
        DecontamStage(DecontamConfig(against=["humaneval-plus-plus"]))
    monkeypatch.setattr(decontam_refs, "_shared_data_dirs", lambda: [tmp_path])
    # a broken install: shipped files missing
    monkeypatch.setattr(decontam_refs, "DATA_DIR", tmp_path)
    with pytest.raises(UserError, match="mbpp-test=PATH"):
        DecontamStage(DecontamConfig(against=["mbpp-test"]))
    with pytest.raises(UserError, match="lcb=PATH"):
        DecontamStage(DecontamConfig(against=["lcb"]))
    with pytest.raises(UserError, match="does not exist"):
        DecontamStage(DecontamConfig(against=[str(tmp_path / "nope.jsonl")]))


def test_canonical_file_and_lcb_window(tmp_path: Path) -> None:
    canon = tmp_path / "private_eval.jsonl"
    rec = {
        "id": "p7",
        "statement": "Count the islands in a grid of zeros and ones connected four ways.",
        "tests": [{"input": "3 3\n1 0 1\n0 1 0\n1 0 1\n", "output": "5\n"}],
        "solutions": [],
    }
    canon.write_text(json.dumps(rec) + "\n")
    stage = DecontamStage(DecontamConfig(against=[str(canon)], ngram=6))
    d = stage.judge_rows([row("a/1", "Task: count the islands in a grid of zeros and ones.")])[0]
    assert d.reason == "contaminated:private_eval:p7"
    d = stage.judge_rows([row("a/2", "Other words entirely.", tests=rec["tests"])])[0]
    assert d.reason == "contaminated:private_eval:p7" and d.detail["kind"] == "tests"

    lcb = tmp_path / "lcb.jsonl"
    rows = [
        {
            "question_id": "q1",
            "question_content": "Find the minimum number of coins that make the amount exactly.",
            "contest_date": "2024-03-01T00:00:00",
            "public_test_cases": "[]",
        },
        {
            "question_id": "q2",
            "question_content": "Find the number of palindromic substrings of the string quickly.",
            "contest_date": "2024-09-01T00:00:00",
            "public_test_cases": "[]",
        },
    ]
    lcb.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    stage = DecontamStage(DecontamConfig(against=[f"lcb={lcb}"], ngram=6, lcb_start="2024-08-01"))
    assert [p.id for p in stage.problems] == ["q2"]
    assert stage.judge_rows([row("b/1", rows[0]["question_content"])])[0].keep
    assert (
        stage.judge_rows([row("b/2", rows[1]["question_content"])])[0].reason
        == "contaminated:lcb:q2"
    )
    with pytest.raises(UserError, match="YYYY-MM-DD"):
        DecontamStage(DecontamConfig(against=[f"lcb={lcb}"], lcb_start="last year"))


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def test_humaneval_x_is_fully_contaminated(humaneval_stage: DecontamStage) -> None:
    hx = _jsonl(shared_file("humaneval-x-python.jsonl.gz"))
    rows = [
        row(
            "humaneval-x/" + r["task_id"],
            r["prompt"],
            test_code=r["test"],
            solutions=[r["prompt"] + r["canonical_solution"]],
        )
        for r in hx
    ]
    decisions = humaneval_stage.judge_rows(rows)
    assert all(not d.keep for d in decisions)
    assert [d.reason for d in decisions] == [
        f"contaminated:humaneval:HumanEval/{r['task_id'].split('/')[1]}" for r in hx
    ]
    # the tests alone, and the solutions alone, find them too
    only_tests = [dict(r, statement="(hidden)", solutions=[]) for r in rows]
    assert sum(not d.keep for d in humaneval_stage.judge_rows(only_tests)) >= 160
    only_code = [dict(r, statement="(hidden)", test_code=None) for r in rows]
    assert sum(not d.keep for d in humaneval_stage.judge_rows(only_code)) == 164


def test_other_sources_are_clean_against_humaneval(humaneval_stage: DecontamStage) -> None:
    lc = _jsonl(shared_file("LeetCodeDataset-v0.2.0-train.jsonl.gz"))
    mb = _jsonl(shared_file("mbpp.jsonl.gz"))
    rows = [row("lc/" + r["task_id"], r["query"], solutions=[r["completion"]]) for r in lc]
    rows += [
        row(
            "mbpp/" + str(r["task_id"]),
            r["text"],
            test_code="\n".join(r["test_list"]),
            solutions=[r["code"]],
        )
        for r in mb
    ]
    assert [
        r["problem_id"] for r, d in zip(rows, humaneval_stage.judge_rows(rows)) if not d.keep
    ] == []


def test_mbpp_test_split_is_ids_11_to_510() -> None:
    path = shared_file("mbpp.jsonl.gz")
    probs = load_benchmark(f"mbpp-test={path}")
    assert len(probs) == 500 and {int(p.id) for p in probs} == set(range(11, 511))


def test_the_default_benchmarks_are_exactly_the_shipped_ones():
    """settings holds the default (so it imports no stage); references holds the files: one list."""
    from filters.settings import DEFAULT_BENCHMARKS
    from filters.stages.decontam.references import DATA_DIR, SHIPPED

    assert DEFAULT_BENCHMARKS == tuple(SHIPPED)
    assert all((DATA_DIR / file).is_file() for file, _licence in SHIPPED.values())
