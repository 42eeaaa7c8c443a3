"""Amplify with references in every language: on a real CodeContests row with its hand-written
C++ reference (benchmarks/data/codecontests_cpp_refs.json), Python and C++ label together, a
problem with only C++ references is amplified, and a wrong C++ reference drops the inputs it
disagrees on, not the problem or its correct tests. Skips without ../shared/data or g++."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from curation.record_files import records_to_table
from curation.schema import normalize_record
from filters.sandbox import RunResult, Sandbox
from filters.settings import AmplifyConfig
from filters.stages.amplify.stage import AmplifyStage
from filters.stages.verify.labelling import labelling_order, labelling_references, mutated_reference

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")

REFS = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "codecontests_cpp_refs.json"
PID = "1141_a_game_23_2618"  # n -> m by multiplying by 2 or 3: how many moves, else -1
SETTINGS = dict(target_tests=16, mutants=4, rounds=2, candidates=12)


@pytest.fixture(scope="module")
def row() -> dict:
    from curation.sources import default_path, get_source, iter_source
    from filters.contracts import UserError

    try:
        default_path(get_source("codecontests-subset"))
    except UserError:
        pytest.skip("no local file for codecontests-subset (../shared/data is absent)")
    for r in iter_source("codecontests-subset", limit=300):
        if isinstance(r, dict) and r.get("id") == PID:
            rec = normalize_record(r)
            rec["problem_id"] = f"codecontests-subset/{PID}"
            return rec
    raise AssertionError(f"{PID} not in the subset")


@pytest.fixture(scope="module")
def cpp() -> str:
    return json.loads(REFS.read_text())["solutions"][PID]


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2) as box:
        yield box


def with_refs(row: dict, refs: list[tuple[str, str]]) -> dict:
    return dict(row, solutions=[c for c, _ in refs], solution_languages=[lang for _, lang in refs])


def accepted_by(sb: Sandbox, row: dict, code: str, lang: str, tests: list[dict]) -> bool:
    judged = [{"input": t["input"], "output": t["output"]} for t in tests]
    r = sb.run(row, code, language=lang, tests=judged)
    return r.verdict == "AC" and r.tests_passed == len(tests)


def test_which_references_label_and_in_which_order():
    rec = {
        "solutions": ["py1", "c1", "c2", "j"],
        "solution_languages": ["python", "cpp", "cpp", "java"],
    }
    assert labelling_references(rec, "stdio") == [("py1", "python"), ("c1", "cpp"), ("c2", "cpp")]
    assert labelling_references(rec, "stdio", 2) == [("py1", "python"), ("c1", "cpp")]
    assert labelling_references(rec, "call") == [("py1", "python")]  # C++ judges stdio only
    passing = [
        ("py1", "python", RunResult("AC", cpu_ms=40.0)),
        ("py2", "python", RunResult("AC", cpu_ms=4.0)),
        ("c1", "cpp", RunResult("AC", cpu_ms=90.0)),
    ]
    # C++ labels first, then the record's order: never by the CPU measured (issue 42)
    assert [(c, lang) for c, lang, _ in labelling_order(passing)] == [
        ("c1", "cpp"), ("py1", "python"), ("py2", "python")]  # fmt: skip
    passing = passing[:1] + passing[2:]
    assert mutated_reference(passing) == ("py1", "python")
    assert mutated_reference(passing[1:]) == ("c1", "cpp")  # token mutants of the C++ one
    assert mutated_reference([("j", "java", RunResult("AC"))]) is None


def test_python_and_cpp_references_label_together(row, cpp, sb):
    py = row["solutions"][0]
    stage = AmplifyStage(AmplifyConfig(**SETTINGS), sandbox=sb)
    out = stage.process(records_to_table([with_refs(row, [(py, "python"), (cpp, "cpp")])]))
    rec = out.kept.to_pylist()[0]
    assert rec["amplify_status"] == "amplified", rec["amplify_note"]
    assert sorted(rec["amplify_languages"]) == ["cpp", "python"]
    new = rec["generated_tests"]
    assert new and all(
        accepted_by(sb, row, c, lang, new) for c, lang in [(py, "python"), (cpp, "cpp")]
    )


def test_a_problem_with_only_cpp_references_is_amplified(row, cpp, sb):
    o = AmplifyStage(AmplifyConfig(**SETTINGS), sandbox=sb).amplify(with_refs(row, [(cpp, "cpp")]))
    assert o.status == "amplified", o.note
    assert o.languages == ["cpp"] and o.mutants == 0  # no Python reference to mutate
    assert len(row["tests"]) + len(o.tests) >= SETTINGS["target_tests"]
    # the C++ labels are right: the problem's Python reference accepts them
    assert accepted_by(sb, row, row["solutions"][0], "python", o.tests)


def test_cpp_mutants_guide_a_cpp_only_problem_when_asked(row, cpp, sb):
    """`cpp_mutants=True`: token mutants of the C++ reference guide the choice and give the
    suite's mutation scores (off by default: on 11 CodeContests problems no stronger suites)."""
    o = AmplifyStage(AmplifyConfig(cpp_mutants=True, **SETTINGS), sandbox=sb).amplify(with_refs(row, [(cpp, "cpp")]))
    assert o.status == "amplified", o.note
    assert o.languages == ["cpp"] and o.mutants > 0, o.note
    assert o.killed_before is not None and o.killed_after is not None
    assert o.killed_after >= o.killed_before
    assert accepted_by(sb, row, row["solutions"][0], "python", o.tests)


def test_a_wrong_cpp_reference_drops_inputs_not_the_problem(row, cpp, sb):
    # wrong only where n > m (it prints 0, not -1): none of the original tests, many mutated ones
    wrong = cpp.replace(
        "if (m % n != 0)", 'if (n > m) { std::cout << 0 << "\\n"; return 0; }\n    if (m % n != 0)'
    )
    assert wrong != cpp
    assert sb.run(row, wrong, language="cpp").verdict == "AC"  # it passes the original tests
    py = row["solutions"][0]
    o = AmplifyStage(AmplifyConfig(**SETTINGS), sandbox=sb).amplify(
        with_refs(row, [(py, "python"), (wrong, "cpp")])
    )
    assert o.status == "amplified", o.note
    assert "references disagree (" in o.note  # counted, naming the languages
    assert sorted(o.languages) == ["cpp", "python"]
    for t in o.tests:  # no input the two disagree on was kept
        n, m = map(int, t["input"].split())
        assert n <= m, t
    assert accepted_by(sb, row, py, "python", o.tests) and accepted_by(sb, row, cpp, "cpp", o.tests)
