"""Each hub source on a small fixture in its real hub schema (tests/fixtures/hub, see make_fixtures.py)."""

from __future__ import annotations

import json
from pathlib import Path

from curation.schema import RecordError, normalize_record
from curation.sources import iter_source

HUB = Path(__file__).resolve().parents[1] / "fixtures" / "hub"


def _load(name: str, sub: str, **opts):
    out = list(iter_source(name, HUB / sub, **opts))
    recs = {r["id"]: normalize_record(r) for r in out if isinstance(r, dict)}
    errs = {e.partial["id"]: e for e in out if isinstance(e, RecordError)}
    for r in recs.values():
        assert r["source"] == name
    for e in errs.values():
        assert e.partial["source"] == name
    return recs, errs


def test_taco_arrow_files_stdio_call_and_class_entry_points():
    recs, errs = _load("taco", "taco")
    assert set(recs) == {"0", "1", "2"} and errs["3"].field == "tests"
    assert recs["0"]["test_type"] == "stdio" and recs["0"]["tests"][1] == {
        "input": "5 7\n",
        "output": "12\n",
    }
    assert recs["0"]["time_limit_s"] == 1.0 and recs["0"]["memory_limit_mb"] == 256.0
    assert recs["0"]["difficulty_label"] == "EASY" and recs["0"]["tags"] == ["Mathematics"]
    assert recs["1"]["entry_point"] == "double" and recs["1"]["tests"][2] == {
        "input": "[[1, 2]]",
        "output": "[1, 2, 1, 2]",
    }
    assert recs["2"]["entry_point"] == "Solution().twice"
    assert recs["0"]["starter_code"] is None and recs["1"]["solutions"][0].startswith("def double")


def test_taco_verified_parquet_same_format():
    recs, errs = _load("taco-verified", "taco-verified")
    assert len(recs) == 3 and len(errs) == 1


def test_apps_jsonl_with_empty_tests():
    recs, _ = _load("apps", "apps")
    assert recs["4001"]["tests"] == [{"input": "2 2\n", "output": "4\n"}]
    assert recs["4002"]["tests"] == [] and recs["4002"]["solutions"] == []
    assert recs["4001"]["difficulty_label"] == "introductory"


def test_code_contests_python3_only_limits_and_file_io_rejected():
    recs, errs = _load("code-contests", "code_contests")
    r = recs["9001_A. Toy Sum"]
    assert len(r["tests"]) == 4 and r["solutions"] == [
        "a, b = map(int, input().split())\nprint(a + b)\n"
    ]
    assert r["incorrect_solutions"] == ["print(0)\n"]
    assert (
        r["time_limit_s"] == 2.5 and r["memory_limit_mb"] == 256.0 and r["difficulty_label"] == "A"
    )
    assert r["tags"] == ["math", "implementation"]
    assert errs["9001_B. File Toy"].field == "input_file"
    recs2, _ = _load("code-contests", "code_contests", include_generated=False)
    assert len(recs2["9001_A. Toy Sum"]["tests"]) == 2


def test_lcb_compressed_private_tests_functional_and_window():
    recs, errs = _load("lcb", "lcb")
    r = recs["9901"]
    assert r["test_type"] == "call" and r["entry_point"] == "Solution().scale"
    assert [json.loads(t["input"]) for t in r["tests"]] == [[[1], 3], [[1, 2, 3], 2]]
    assert json.loads(r["tests"][1]["output"]) == [2, 4, 6]
    assert recs["abc999_a"]["test_type"] == "stdio" and len(recs["abc999_a"]["tests"]) == 2
    assert errs["9902"].field == "tests" and "not allowed" in errs["9902"].message
    recs2, errs2 = _load("lcb", "lcb", start="2024-01-01", end="2024-09-30")
    assert set(recs2) == {"9901"} and not errs2


def test_primeintellect_fenced_solutions_language_filter_and_prose_rejected():
    recs, errs = _load("primeintellect", "primeintellect")
    assert set(recs) == {"pi_1", "pi_2"}  # the rust row is skipped, not rejected
    assert recs["pi_1"]["solutions"] == ["a, b = map(int, input().split())\nprint(a + b)\n"]
    assert recs["pi_1"]["time_limit_s"] == 1.0 and recs["pi_1"]["difficulty_label"] == "EASY"
    assert recs["pi_2"]["test_type"] == "call" and recs["pi_2"]["tests"] == [
        {"input": "[5]", "output": "10"}
    ]
    assert errs["pi_4"].field == "solutions"
    recs_rust, _ = _load("primeintellect", "primeintellect", language="rust")
    assert set(recs_rust) == {"pi_3"}


def test_deepcoder_list_and_taco_test_forms():
    recs, errs = _load("deepcoder", "deepcoder/taco")
    assert not errs
    assert recs["taco-0"]["entry_point"] == "double_all"
    assert recs["taco-0"]["tests"] == [{"input": "[[1, 2]]", "output": "[2, 4]"}]
    assert recs["taco-1"]["test_type"] == "stdio" and recs["taco-2"]["entry_point"] == "double"
    recs2, _ = _load("deepcoder", "deepcoder/taco", config="lcbv5")
    assert "lcbv5-0" in recs2


def test_codeforces_checker_rating_and_unsupported_modes():
    recs, errs = _load("codeforces", "codeforces")
    r = recs["9001/A"]
    assert (
        r["difficulty_label"] == "800"
        and r["time_limit_s"] == 2.0
        and r["memory_limit_mb"] == 256.0
    )
    assert "Print the two given numbers" in r["statement"] and "Example 1" in r["statement"]
    ns: dict = {}
    exec(r["checker"], ns)
    assert ns["check"]("3 4\n", "3 4\n", "4 3\n") and not ns["check"]("3 4\n", "3 4\n", "3 3\n")
    assert errs["9001/B"].field == "interaction_format" and errs["9001/C"].field == "input_mode"


def test_a_snapshot_with_several_splits_reads_only_the_asked_split(tmp_path):
    import shutil

    src = HUB / "taco-verified" / "train-00000-of-00001.parquet"
    (tmp_path / "data").mkdir()
    shutil.copy(src, tmp_path / "data" / "train-00000-of-00001.parquet")
    shutil.copy(src, tmp_path / "data" / "test-00000-of-00001.parquet")
    assert len(list(iter_source("taco-verified", tmp_path))) == 4
    assert len(list(iter_source("taco-verified", tmp_path, split="test"))) == 4
    assert (
        len(list(iter_source("taco-verified", tmp_path / "data" / "test-00000-of-00001.parquet")))
        == 4
    )
