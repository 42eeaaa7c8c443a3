"""The demo corpus: deterministic, valid, every reference right, and every planted defect real."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys

import pytest

from curation.demo import (
    CAUGHT_INCORRECT,
    CLEAN_IDS,
    DEMO_SOURCES,
    PLANTED,
    demo_records,
    problem_id,
)
from curation.demo.bank_planted import HUMANEVAL_0_PROMPT
from curation.schema import RecordError, normalize_record
from curation.sources import iter_source

RECORDS = list(demo_records())
BY_ID = {f"{r['source']}/{r['id']}": r for r in RECORDS if isinstance(r, dict)}


def _run(rec: dict, code: str) -> bool:
    """Does `code` pass every test of `rec`? (in-process; demo code is ours and small)"""
    if rec["test_type"] == "stdio":
        for t in rec["tests"]:
            out, old = io.StringIO(), sys.stdin
            sys.stdin = io.StringIO(t["input"])
            try:
                with contextlib.redirect_stdout(out):
                    exec(code, {"__name__": "__main__"})
            finally:
                sys.stdin = old
            if out.getvalue().split() != t["output"].split():
                return False
        return True
    ns: dict = {"__name__": "sol"}
    exec(code, ns)
    ep = rec["entry_point"]
    fn = getattr(ns["Solution"](), ep.split(".")[1]) if ep.startswith("Solution().") else ns[ep]
    if rec["test_type"] == "call":
        return all(
            json.loads(json.dumps(fn(*json.loads(t["input"])))) == json.loads(t["output"])
            for t in rec["tests"]
        )
    tns: dict = {}
    exec(rec["test_code"], tns)
    try:
        tns["check"](fn)
    except AssertionError:
        return False
    return True


def _tests_count(rec: dict) -> int:
    return len(rec["tests"]) or rec["test_code"].count("assert ")


def test_size_types_and_determinism():
    assert 40 <= len(RECORDS) <= 60
    assert {r["test_type"] for r in RECORDS if isinstance(r, dict)} == {"stdio", "call", "assert"}
    again = list(demo_records())
    assert [r for r in again if isinstance(r, dict)] == [r for r in RECORDS if isinstance(r, dict)]
    assert len(BY_ID) == len([r for r in RECORDS if isinstance(r, dict)])  # ids are unique


def test_registered_as_a_source_that_keeps_its_rows_sources():
    out = list(iter_source("demo"))
    assert len(out) == len(RECORDS)
    sources = [o.partial["source"] if isinstance(o, RecordError) else o["source"] for o in out]
    assert set(sources) == set(DEMO_SOURCES) and len(DEMO_SOURCES) == 3


def test_the_sources_differ_in_test_type_and_label_scale():
    """Mixing by source has something to choose between: each source is one kind of problem."""
    by_source: dict[str, list[dict]] = {}
    for r in RECORDS:
        if isinstance(r, dict):
            by_source.setdefault(r["source"], []).append(r)
    types = {s: {r["test_type"] for r in rows} for s, rows in by_source.items()}
    assert types == {
        "demo-contest": {"stdio"},
        "demo-interview": {"call"},
        "demo-basics": {"assert"},
    }
    labels = {
        s: {r.get("difficulty_label") for r in rows} - {None} for s, rows in by_source.items()
    }
    assert labels["demo-contest"] <= set("ABCD") and len(labels["demo-contest"]) >= 3
    assert labels["demo-interview"] == {"easy", "medium"}
    assert min(len(rows) for rows in by_source.values()) >= 10


@pytest.mark.parametrize("pid", CLEAN_IDS)
def test_clean_problem_is_valid_and_its_reference_passes(pid):
    rec = normalize_record(BY_ID[pid])
    # call-vowel-total arrives with 3 tests: the amplify stage adds the rest
    assert (3 if pid == problem_id("call-vowel-total") else 5) <= _tests_count(rec) <= 10
    assert _run(rec, rec["solutions"][0])
    for wrong in rec["incorrect_solutions"]:
        assert not _run(rec, wrong), f"{pid}: tests accept a known-wrong solution"


def test_planted_schema_rows_name_their_field():
    fields = {}
    for r in RECORDS:
        try:
            if isinstance(r, RecordError):
                raise r
            normalize_record(r)
        except RecordError as e:
            rid = r.partial["id"] if isinstance(r, RecordError) else r["id"]
            fields[problem_id(rid)] = e.field
    assert fields == {pid: reason for pid, (stage, reason) in PLANTED.items() if stage == "schema"}


def test_planted_verify_defects_are_real():
    wrong = BY_ID[problem_id("call-middle-value")]
    assert not _run(wrong, wrong["solutions"][0])
    few = BY_ID[problem_id("stdio-any-divisor")]
    assert _tests_count(few) < 5 and _run(few, few["solutions"][0])
    weak = BY_ID[problem_id("call-top-reading")]
    assert _run(weak, weak["solutions"][0]) and _run(weak, weak["incorrect_solutions"][0])
    assert CAUGHT_INCORRECT and all(BY_ID[p]["incorrect_solutions"] for p in CAUGHT_INCORRECT)


def test_planted_slow_reference_exceeds_its_limit():
    rec = BY_ID[problem_id("stdio-pair-sums-slow")]
    assert rec["time_limit_s"] == 1.0
    small = [t for t in rec["tests"] if len(t["input"]) < 1000]
    big = next(t for t in rec["tests"] if len(t["input"]) > 10000)
    assert small and _run({**rec, "tests": small}, rec["solutions"][0])  # correct on small inputs
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", rec["solutions"][0]], input=big["input"], text=True,
                       capture_output=True, timeout=1.5)  # fmt: skip


def _shingles(text: str, k: int = 5) -> set[tuple[str, ...]]:
    toks = re.findall(r"\w+|[^\w\s]", text.lower())
    return {tuple(toks[i : i + k]) for i in range(len(toks) - k + 1)}


def _jaccard(a: str, b: str) -> float:
    sa, sb = _shingles(a), _shingles(b)
    return len(sa & sb) / len(sa | sb)


def test_planted_duplicates_are_near_and_clean_problems_are_not():
    assert (
        BY_ID[problem_id("stdio-reverse-words-copy")]["statement"]
        == BY_ID[problem_id("stdio-reverse-words")]["statement"]
    )
    near = _jaccard(
        BY_ID[problem_id("stdio-cover-length-v2")]["statement"],
        BY_ID[problem_id("stdio-cover-length")]["statement"],
    )
    assert 0.8 <= near < 1.0
    assert (
        BY_ID[problem_id("stdio-cover-length-v2")]["solutions"]
        != BY_ID[problem_id("stdio-cover-length")]["solutions"]
    )
    stmts = [BY_ID[p]["statement"] for p in CLEAN_IDS]
    worst = max(_jaccard(a, b) for i, a in enumerate(stmts) for b in stmts[i + 1 :])
    assert worst < 0.3


def _grams(text: str, n: int = 13) -> set[tuple[str, ...]]:
    toks = re.findall(r"\w+", text.lower())
    return {tuple(toks[i : i + n]) for i in range(len(toks) - n + 1)}


def test_planted_contamination_matches_humaneval_and_nothing_else_does():
    rec = BY_ID[problem_id("call-close-pair")]
    assert _grams(rec["statement"]) & _grams(HUMANEVAL_0_PROMPT)
    assert _run(rec, rec["solutions"][0]) and _tests_count(rec) >= 5
    he = _grams(HUMANEVAL_0_PROMPT)
    assert not any(_grams(BY_ID[p]["statement"]) & he for p in CLEAN_IDS)


def test_no_clean_problem_shares_13_grams_with_real_humaneval(shared_data):
    grams: set = set()
    with open(shared_data / "HumanEval.jsonl.gz", "rb") as f:
        import gzip

        for line in gzip.open(f):
            grams |= _grams(json.loads(line)["prompt"])
    assert not any(_grams(BY_ID[p]["statement"]) & grams for p in CLEAN_IDS)
    assert _grams(BY_ID[problem_id("call-close-pair")]["statement"]) & grams
