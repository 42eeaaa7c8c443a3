"""Each hub source on a small fixture in its real hub schema and layout (tests/fixtures/hub, see make_fixtures.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from curation.schema import RecordError, normalize_record
from curation.sources import iter_source
from filters.contracts import UserError
from filters.settings import VerifyConfig

HUB = Path(__file__).resolve().parents[1] / "fixtures" / "hub"


def _key(e: RecordError) -> str:
    """A rejected row's id, or its row index where the row names none (its problem_id is then
    SOURCE#row-N, which no real id can equal)."""
    return str(e.partial.get("id", e.where.get("row")))


def _load(name: str, sub: str | Path, **opts):
    out = list(iter_source(name, HUB / sub, **opts))
    recs = {r["id"]: normalize_record(r) for r in out if isinstance(r, dict)}
    errs = {_key(e): e for e in out if isinstance(e, RecordError)}
    for r in recs.values():
        assert r["source"] == name
    for e in errs.values():
        assert e.partial["source"] == name
    return recs, errs


def test_taco_stdio_call_and_class_entry_points():
    recs, errs = _load("taco", "taco")
    assert {"0", "1", "2", "4", "7"} <= set(recs) and errs["3"].field == "tests"
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


def test_a_full_taco_snapshot_reads_one_layout_once():
    """Bug: a snapshot holding ALL/*.parquet and train/*.arrow gave every row twice."""
    out = list(iter_source("taco", HUB / "taco"))
    assert (
        len(out) == 8
        and len({o["id"] if isinstance(o, dict) else _key(o) for o in out}) == 8
    )
    assert len(list(iter_source("taco", HUB / "taco", split="test"))) == 1
    arrow_only = list(iter_source("taco", HUB / "taco" / "train"))  # the arrow layout alone
    assert len(arrow_only) == 8


def test_taco_call_outputs_unwrapped_by_site():
    """Bug: a LeetCode function returning [3] was expected to return 3 (every site was unwrapped)."""
    recs, _ = _load("taco", "taco")
    assert recs["1"]["tests"][0] == {"input": "[1]", "output": "2"}  # codewars: [[2]] -> 2
    assert recs["4"]["entry_point"] == "Solution().single"
    assert [t["output"] for t in recs["4"]["tests"]] == ["[3]", "[5]"]  # leetcode: as stored


def test_taco_unsupported_rows_are_rejected_with_a_reason():
    """Bug: GeeksforGeeks rows became stdio problems whose stdin was the statement's examples."""
    _, errs = _load("taco", "taco")
    assert errs["5"].reject_reason == "unsupported_format:geeksforgeeks"
    assert "class Solution" in errs["5"].message
    assert errs["6"].reject_reason == "unsupported_format:codechef"


def test_taco_integers_past_the_int_digit_limit_load():
    """Bug: an output of 10**5000 exceeded Python's 4,300-digit int limit and rejected the row."""
    recs, _ = _load("taco", "taco")
    out = recs["7"]["tests"][0]["output"]
    assert len(out) == 5001 and out == "1" + "0" * 5000


def test_taco_verified_json_array_file_streams():
    """Bug: TACO-verified's hub file is one JSON array (taco_verified.json), which was unreadable."""
    recs, errs = _load("taco-verified", "taco-verified")
    assert set(recs) == {"0", "1", "2", "4", "7"} and set(errs) == {"3", "5", "6"}
    assert recs["0"]["solutions"] == ["a, b = map(int, input().split())\nprint(a + b)\n"]
    assert recs["7"]["tests"][0]["output"] == "1" + "0" * 5000


def test_apps_jsonl_empty_tests_and_call_wrapping_by_url():
    recs, _ = _load("apps", "apps")
    assert recs["4001"]["tests"] == [{"input": "2 2\n", "output": "4\n"}]
    assert recs["4002"]["tests"] == [] and recs["4002"]["solutions"] == []
    assert recs["4001"]["difficulty_label"] == "introductory"
    assert recs["4003"]["tests"][0]["output"] == "[3]"  # codewars.com: [[3]] unwrapped once
    assert recs["4004"]["tests"][0]["output"] == "[3]"  # leetcode.com: [3] as stored
    assert recs["4004"]["entry_point"] == "Solution().single"


def test_code_contests_every_language_limits_and_file_io_rejected():
    recs, errs = _load("code-contests", "code_contests")
    r = recs["9001_A. Toy Sum"]
    add = "a, b = map(int, input().split())\nprint(a + b)\n"
    assert len(r["tests"]) == 4 and r["solutions"] == ["int main(){}", add, "print 0"]
    assert r["solution_languages"] == ["cpp", "python", "python2"]
    assert r["incorrect_solutions"] == ["print(0)\n", "class Main {}"]
    assert r["incorrect_solution_languages"] == ["python", "java"]
    judged, _ = _load("code-contests", "code_contests", languages="python,cpp")
    assert judged["9001_A. Toy Sum"]["solution_languages"] == ["cpp", "python"]
    assert judged["9001_A. Toy Sum"]["incorrect_solutions"] == ["print(0)\n"]
    assert r["time_limit_s"] == 2.5 and r["difficulty_label"] == "A"
    assert r["tags"] == ["math", "implementation"]
    assert errs["9001_B. File Toy"].field == "input_file"
    assert errs["9001_B. File Toy"].reject_reason == "unsupported_format:file_io"
    recs2, _ = _load("code-contests", "code_contests", include_generated=False)
    assert len(recs2["9001_A. Toy Sum"]["tests"]) == 2


def test_code_contests_decimal_megabytes_and_proto_letters():
    """Bugs: 256000000 bytes became 244.1 (MiB), and difficulty 19 became 'M' (the enum skips 18)."""
    recs, _ = _load("code-contests", "code_contests")
    assert recs["9001_A. Toy Sum"]["memory_limit_mb"] == 256.0
    assert recs["9001_L. Late Letter"]["memory_limit_mb"] == 512.0
    assert recs["9001_L. Late Letter"]["difficulty_label"] == "L"


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
    recs, errs = _load("deepcoder", "deepcoder", config="taco")
    assert not errs
    assert recs["taco-0"]["entry_point"] == "double_all"
    assert recs["taco-0"]["tests"] == [{"input": "[[1, 2]]", "output": "[2, 4]"}]
    assert recs["taco-1"]["test_type"] == "stdio" and recs["taco-2"]["entry_point"] == "double"
    recs2, _ = _load("deepcoder", "deepcoder/taco", config="lcbv5")
    assert "lcbv5-0" in recs2


def test_deepcoder_primeintellect_rows_unwrapped_and_statement_cleaned():
    """Bugs: function_call outputs stayed wrapped ([[1, 1]] for [1, 1]) and the instructions stayed."""
    recs, _ = _load("deepcoder", "deepcoder", config="primeintellect")
    r = recs["primeintellect-0"]
    assert r["entry_point"] == "pair"
    assert r["tests"] == [
        {"input": "[1]", "output": "[1, 1]"},
        {"input": "[2]", "output": "[2, 2]"},
    ]
    assert r["statement"] == "Return the list [n, n]."
    assert r["source_prompt"].startswith("Solve the following coding problem")
    assert r["solutions"] == ["def pair(n):\n    return [n, n]\n"]


def test_deepcoder_codeforces_config_reads_its_test_split_and_limits():
    """Bug: the codeforces config has only a test split, and `train` (the default) found nothing."""
    recs, _ = _load("deepcoder", "deepcoder", config="codeforces")
    r = recs["codeforces-0"]
    assert r["time_limit_s"] == 2.0 and r["memory_limit_mb"] == 256.0
    assert r["tests"] == [{"input": "1 2", "output": "3"}]
    with pytest.raises(UserError, match="config codeforces has no split 'train'; splits: test"):
        iter_source("deepcoder", config="codeforces", split="train")
    with pytest.raises(UserError, match="unknown config 'codeforce'"):
        iter_source("deepcoder", config="codeforce")


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
    assert errs["9001/B"].reject_reason == "unsupported_format:interactive"
    assert errs["9001/C"].reject_reason == "unsupported_format:file_io"


def test_codeforces_incomplete_official_tests_are_marked():
    """Bug: `official_tests_complete` was ignored; a problem missing official tests looked complete."""
    recs, _ = _load("codeforces", "codeforces")
    assert recs["9001/A"]["tests_complete"] is True and recs["9001/D"]["tests_complete"] is False


def test_a_snapshot_with_several_splits_reads_only_the_asked_split(tmp_path):
    src = HUB / "code_contests" / "train-00000-of-00001.parquet"
    (tmp_path / "data").mkdir()
    shutil.copy(src, tmp_path / "data" / "train-00000-of-00001.parquet")
    shutil.copy(src, tmp_path / "data" / "test-00000-of-00001.parquet")
    assert len(list(iter_source("code-contests", tmp_path))) == 3
    assert len(list(iter_source("code-contests", tmp_path, split="test"))) == 3
    one = tmp_path / "data" / "test-00000-of-00001.parquet"
    assert len(list(iter_source("code-contests", one))) == 3


def test_verify_drops_problems_whose_source_left_out_tests():
    """An incomplete official test set rewards programs the real judge rejects: dropped as
    `incomplete_tests` unless the stage is told to keep them."""
    from curation.record_files import records_to_table
    from filters.sandbox import Sandbox
    from filters.stages.verify.stage import VerifyStage

    recs, _ = _load("codeforces", "codeforces")
    sol = "print(sum(map(int, input().split())))\n"
    rows = [
        dict(recs["9001/D"], solutions=[sol]),
        dict(recs["9001/D"], id="complete", solutions=[sol], tests_complete=None),
    ]
    with Sandbox(workers=1) as box:
        got = VerifyStage(VerifyConfig(min_tests=1, repeats=1, mutants=0), sandbox=box).process(
            records_to_table(rows)
        )
        assert [r["reject_reason"] for r in got.dropped.to_pylist()] == ["incomplete_tests"]
        assert [r["id"] for r in got.kept.to_pylist()] == ["complete"]
        keep = VerifyStage(VerifyConfig(min_tests=1, repeats=1, mutants=0, keep_incomplete_tests=True), sandbox=box)
        assert keep.process(records_to_table(rows)).kept.num_rows == 2


def test_a_local_lcb_snapshot_reads_the_release_asked_for(tmp_path):
    for name in ("test.jsonl", "test2.jsonl"):
        shutil.copy(HUB / "lcb" / "test.jsonl", tmp_path / name)
    assert len(list(iter_source("lcb", tmp_path, version_tag="release_v1"))) == 3
    assert len(list(iter_source("lcb", tmp_path, version_tag="release_v2"))) == 6


def test_a_release_is_part_of_a_sources_declaration_not_a_special_case(tmp_path, monkeypatch):
    # A second source declared with its own ReleaseFiles goes through the same loader as lcb:
    # its option is a loader option (not split), a snapshot folder reads only the files it
    # names, and the hub URLs and the words in `codemix sources` come from the declaration.
    from curation.sources import Source, how_read, how_read_locally, source_options
    from curation.sources.hub import HUB_URL, ReleaseFiles
    from curation.sources.lcb import convert_lcb

    release = ReleaseFiles(
        option="edition",
        default="e2",
        names=lambda e: [f"part{i}.jsonl" for i in range(1, int(e[1:]) + 1)],
        pattern="part*.jsonl",
        described="part1.jsonl ... part2.jsonl",
    )
    toy = Source("toy", "hub", "a toy release", ("stdio",), convert_lcb, hub_id="me/toy",
                 splits=("test",), release=release)  # fmt: skip
    for name in ("part1.jsonl", "part2.jsonl", "part3.jsonl"):
        shutil.copy(HUB / "lcb" / "test.jsonl", tmp_path / name)
    assert source_options(toy) == ["edition", "end", "start"]
    assert len(list(iter_source(toy, tmp_path, edition="e1"))) == 3
    assert len(list(iter_source(toy, tmp_path))) == 6  # the default edition: two files
    with pytest.raises(UserError, match="split"):
        iter_source(toy, tmp_path, split="test")
    assert release.urls("me/toy", "e2") == [f"{HUB_URL}/me/toy/part1.jsonl", f"{HUB_URL}/me/toy/part2.jsonl"]
    assert "part1.jsonl ... part2.jsonl (up to edition)" in how_read(toy)
    assert "part*.jsonl (up to edition)" in how_read_locally(toy)
