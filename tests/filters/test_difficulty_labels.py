"""Label prior: every source's labels land on one [0, 1] scale in the right order."""

from __future__ import annotations

import ast
import gzip
import json

import numpy as np
import pytest

from filters.stages.difficulty import label_prior, spearman
from tests.conftest import shared_file


def d(label, source=None) -> float:
    lp = label_prior(label, source)
    assert lp is not None, (label, source)
    return lp.difficulty


def test_families_are_ordered() -> None:
    assert (
        d("EASY", "taco")
        < d("MEDIUM", "taco")
        < d("MEDIUM_HARD", "taco")
        < d("HARD", "taco")
        < d("VERY_HARD", "taco")
    )
    assert d("introductory") < d("interview") < d("competition")
    assert d("Easy", "leetcode") < d("Medium", "leetcode") < d("Hard", "leetcode")
    assert d("easy", "lcb") < d("medium", "lcb") < d("hard", "lcb")
    assert d("800") < d("1500") < d("2400") < d("3500")
    assert [d(str(v), "codecontests") for v in range(7, 16)] == sorted(
        d(str(v), "codecontests") for v in range(7, 16)
    )
    assert d("A") < d("B") < d("C2") < d("D") < d("I")
    assert d("EASY", "code_contests") < d("HARDER", "code_contests") < d("HARDEST", "code_contests")


def test_scale_ends_and_agreement_across_families() -> None:
    assert d("800") == 0.0 and d("3500") == 1.0
    assert d(1200) == pytest.approx((1200 - 800) / 2700)
    # the CodeContests enum 8 is the letter B, written either way
    assert d("8", "codecontests") == d("B")
    # a TACO VERY_HARD problem is harder than an APPS introductory one
    assert d("VERY_HARD") > d("introductory")
    assert 0.0 <= d("0.3") <= 1.0
    # small integers are CodeContests' enum only where the source says so
    assert label_prior("11", "some-other-source") is None
    assert d("11", "code_contests") == d("E")


@pytest.mark.parametrize(
    "label", [None, "", "UNKNOWN_DIFFICULTY", "unknown", "EXTERNAL", "0", "6", "banana", True]
)
def test_unknown_labels_give_none(label) -> None:
    assert label_prior(label, "codecontests") is None


def test_std_is_positive_and_coarse_labels_are_wider() -> None:
    assert label_prior("1500").std < label_prior("Medium").std
    assert all(label_prior(x).std > 0 for x in ("Easy", "B", "1900", "interview"))


def test_leetcode_easy_medium_hard_on_real_data() -> None:
    path = shared_file("LeetCodeDataset-v0.2.0-train.jsonl.gz")
    by: dict[str, list[float]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            meta = json.loads(line)["meta"]
            meta = ast.literal_eval(meta) if isinstance(meta, str) else meta
            by.setdefault(meta["difficulty"], []).append(d(meta["difficulty"], "leetcode"))
    assert sum(len(v) for v in by.values()) == 1890
    assert max(by["Easy"]) < min(by["Medium"]) and max(by["Medium"]) < min(by["Hard"])


def test_codecontests_subset_by_problem_index_on_real_data() -> None:
    path = shared_file("codecontests-subset300.jsonl.gz")
    idx, prior = [], []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            v = json.loads(line)["difficulty"]
            lp = label_prior(None if v is None else str(v), "codecontests")
            if v is None:
                assert lp is None
                continue
            idx.append(int(v))
            prior.append(lp.difficulty)
            # the problem letter in the id (1041_e_...) agrees with the enum: 7 = A
            assert lp.difficulty == d(chr(ord("A") + int(v) - 7))
    assert len(idx) == 278
    assert spearman(np.array(idx), np.array(prior)) == pytest.approx(1.0)
