"""A benchmark's `--quick` (smoke, ad hoc) run writes under benchmarks/results/quick/, which git
ignores, so running one leaves `git status` clean and the tracked results as they were."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "benchmarks" / "mixing"))

from mixbench.cli import QUICK, results_dir  # noqa: E402

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout"
)


def _ignored(path: Path) -> bool:
    """git's own answer: is `path` (existing or not) ignored in this checkout?"""
    done = subprocess.run(["git", "check-ignore", "-q", str(path.relative_to(ROOT))], cwd=ROOT)
    assert done.returncode in (0, 1), "git check-ignore failed"
    return done.returncode == 0


def _status() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all", "--", "benchmarks"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def test_the_quick_folder_is_ignored_and_the_results_beside_it_are_not() -> None:
    assert QUICK == RESULTS / "quick"
    for name in ("frontier_b2_quick.json", "build.json", "code_rl/smoke-small-2x2x2-lean/x.json"):
        assert _ignored(QUICK / name)
    # the tracked results, and a new full run's file, stay visible to git
    assert not _ignored(RESULTS / "frontier_overhead.json")
    assert not _ignored(RESULTS / "a_new_benchmark.json")
    assert not _ignored(ROOT / "benchmarks" / "code_rl" / "results" / "a-new-setting" / "x.json")


def test_a_quick_run_goes_to_the_quick_folder_unless_told_otherwise(tmp_path: Path) -> None:
    assert results_dir(None, quick=True) == QUICK
    assert results_dir(None, quick=False) == RESULTS
    assert results_dir(tmp_path, quick=True) == tmp_path


def test_frontier_overhead_quick_leaves_git_status_as_it_was() -> None:
    before = _status()
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "mixing" / "frontier_overhead.py"), "--quick"],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    assert (QUICK / "frontier_overhead_quick.json").is_file()
    assert _status() == before
