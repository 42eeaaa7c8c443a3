"""Smoke check of benchmarks/held_out.py: the third solutions run after their task's prompt and
pass their original tests (two of them; `check` with no ids runs all 357)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "LeetCodeDataset-v0.2.0-train.jsonl.gz"


@pytest.mark.skipif(not DATA.exists(), reason="../shared/data is absent")
def test_check_runs_third_solutions_against_the_original_tests() -> None:
    # a tree problem needs the prompt's tree_node helpers; find-the-difference is plain
    ids = ["balanced-binary-tree", "find-the-difference"]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "held_out.py"), "check", *ids],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "balanced-binary-tree: AC" in proc.stdout and "2 of 2 pass" in proc.stdout
