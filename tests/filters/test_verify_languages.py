"""Verify with references in every language: a problem is kept when its references in any
language pass, the record says which languages passed, and old records read as Python."""

from __future__ import annotations

import json
import shutil

import pytest

from curation.record_files import records_to_table
from curation.schema import normalize_record
from filters.sandbox import Sandbox
from filters.settings import VerifyConfig
from filters.stages.verify.stage import VerifyStage
from filters.tools.languages import judged_programs, languages_of

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")

PY = "a, b = map(int, input().split())\nprint(a + b)"
CPP = '#include <cstdio>\nint main() { long long a, b; scanf("%lld %lld", &a, &b); printf("%lld\\n", a + b); }\n'
CPP_WRONG = CPP.replace("a + b", "a - b")
CPP_ODD = CPP.replace("a + b)", "a == 5 ? 0 : a + b)")  # wrong only when a is 5
TESTS = [
    {"input": f"{a} {b}\n", "output": f"{a + b}\n"}
    for a, b in [(1, 2), (3, 4), (0, 0), (9, -19), (7, 7)]
]


def rec(id_: str, solutions: list[tuple[str, str]], incorrect: list[tuple[str, str]] = ()) -> dict:
    return normalize_record(
        {
            "id": id_,
            "source": "t",
            "statement": "add two numbers",
            "test_type": "stdio",
            "tests": TESTS,
            "solutions": [c for c, _ in solutions],
            "solution_languages": [lang for _, lang in solutions],
            "incorrect_solutions": [c for c, _ in incorrect],
            "incorrect_solution_languages": [lang for _, lang in incorrect],
        }
    )


def test_references_are_taken_in_turn_from_each_judged_language():
    r = rec("x", [(CPP, "cpp"), (CPP_WRONG, "cpp"), ("class Main {}", "java"), (PY, "python")])
    assert judged_programs(r, 2) == [(CPP, "cpp"), (PY, "python")]
    assert [lang for _, lang in judged_programs(r)] == ["cpp", "python", "cpp"]
    old = {"solutions": [PY, PY]}  # a record from before languages: Python
    assert languages_of(old) == ["python", "python"]


def test_a_problem_is_kept_when_references_in_any_language_pass():
    rows = [
        rec("cpp_only", [(CPP, "cpp")], [(PY.replace("+", "-"), "python")]),
        rec("python_wrong_cpp_right", [("print(3)", "python"), (CPP, "cpp")]),
        rec("both", [(PY, "python"), (CPP, "cpp")], [(CPP_WRONG, "cpp")]),
        rec("java_only", [("class Main {}", "java")]),
        rec("weak_by_cpp", [(PY, "python")], [(CPP_ODD, "cpp")]),
    ]
    with Sandbox(workers=2) as sb:
        result = VerifyStage(VerifyConfig(min_tests=5, repeats=2, mutants=4), sandbox=sb).process(
            records_to_table(rows)
        )
    kept = {r["id"]: r for r in result.kept.to_pylist()}
    dropped = {r["id"]: r for r in result.dropped.to_pylist()}
    assert set(kept) == {"cpp_only", "python_wrong_cpp_right", "both"}
    assert kept["cpp_only"]["passing_languages"] == ["cpp"]
    assert kept["cpp_only"]["test_strength"] == 1.0  # its known-wrong Python program is rejected
    mixed = kept["python_wrong_cpp_right"]
    assert mixed["solution_verdicts"] == ["WA", "AC"] and mixed["verdict_languages"] == [
        "python",
        "cpp",
    ]
    assert mixed["passing_languages"] == ["cpp"]
    assert kept["both"]["passing_languages"] == ["cpp", "python"]
    assert kept["both"]["passing_solutions"] == 2
    assert dropped["java_only"]["reject_reason"] == "no_passing_solution"
    assert json.loads(dropped["java_only"]["reject_detail"])["note"] == "no reference solutions"
    # a known-wrong C++ program that passes the tests (none has a = 5) makes them weak
    assert dropped["weak_by_cpp"]["reject_reason"] == "weak_tests"


def test_the_verify_command_judges_each_program_in_its_language(tmp_path):
    from typer.testing import CliRunner

    from curation.cli import app

    src, out = tmp_path / "p.jsonl", tmp_path / "out.jsonl"
    row = rec("add", [("class Main {}", "java"), (CPP, "cpp"), ("print(3)", "python")])
    src.write_text(json.dumps(row) + "\n")
    res = CliRunner().invoke(app, ["verify", str(src), "--out", str(out), "--workers", "1"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(x["index"], x["language"], x["verdict"]) for x in lines] == [
        (1, "cpp", "AC"),
        (2, "python", "WA"),
    ]  # the Java program is not judged
