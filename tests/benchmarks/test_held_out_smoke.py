"""Smoke check of benchmarks/judging/held_out.py: the third solutions load from their JSONL file, and run
after their task's prompt and pass their original tests (two of them; `check` with no ids runs
all of a sample's)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import wait_s

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # benchmarks/ is not installed
DATA = ROOT.parent / "shared" / "data" / "LeetCodeDataset-v0.2.0-train.jsonl.gz"


@pytest.mark.skipif(not DATA.exists(), reason="../shared/data is absent")
def test_check_runs_third_solutions_against_the_original_tests() -> None:
    # a tree problem needs the prompt's tree_node helpers; find-the-difference is plain
    ids = ["balanced-binary-tree", "find-the-difference"]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "judging" / "held_out.py"), "check", *ids],
        capture_output=True, text=True, timeout=wait_s(600), cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "balanced-binary-tree: AC" in proc.stdout and "2 of 2 pass" in proc.stdout


def test_third_solutions_load_one_per_task() -> None:
    from benchmarks.judging.held_out import THIRD, third_solutions

    lines = THIRD.read_text(encoding="utf-8").splitlines()
    solutions = third_solutions()
    assert len(solutions) == len(lines) == 456
    assert list(solutions) == sorted(solutions)  # one line a task, sorted: a diff shows one task
    for task_id, code in solutions.items():
        ast.parse(code, filename=task_id)  # code, not a mangled string
    assert "class Solution" in solutions["find-the-difference"]


def test_a_task_listed_twice_is_an_error(tmp_path: Path) -> None:
    from benchmarks.judging.held_out import third_solutions

    path = tmp_path / "third.jsonl"
    path.write_text('{"task_id": "a", "code": "x = 1\\n"}\n' * 2)
    with pytest.raises(ValueError, match="twice"):
        third_solutions(path)
