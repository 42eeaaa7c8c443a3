"""The `difficulty` stage: label, features and IRT sources, buckets, pass-rate window."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from filters.contracts import UserError
from filters.settings import DifficultyConfig
from filters.stages.difficulty import DifficultyStage, count_rollouts, parse_window, spearman

LABELS = ["Easy", "Medium", "Hard"]


def make_rows(n: int, labelled: bool = True) -> list[dict]:
    rows = []
    for i in range(n):
        level = i % 3
        loops = "\n".join("    " * (d + 1) + f"for i{d} in range(n):" for d in range(level + 1))
        code = f"def f(n):\n{loops}\n" + "    " * (level + 2) + "pass\n"
        rows.append(
            {
                "problem_id": f"src/{i}",
                "id": str(i),
                "source": "src",
                "statement": "Given n. "
                + "word " * (30 + 60 * level)
                + f"1 ≤ n ≤ 10^{2 + 2 * level}",
                "solutions": [code],
                "tags": ["dp"] if level == 2 else ["math"],
                "tests": [{"input": "1", "output": "1"}] * (3 + level),
                "difficulty_label": LABELS[level] if labelled and i < n - 9 else None,
            }
        )
    return rows


def run(stage: DifficultyStage, rows: list[dict], batch: int = 16):
    table = pa.Table.from_pylist(rows)
    for s in range(0, len(rows), batch):
        stage.observe(table.slice(s, batch))
    stage.decide()
    results = [stage.process(table.slice(s, batch)) for s in range(0, len(rows), batch)]
    kept = pa.concat_tables([r.kept for r in results])
    dropped = pa.concat_tables([r.dropped for r in results])
    return kept, dropped


def test_labels_then_features_and_balanced_buckets() -> None:
    rows = make_rows(90)
    stage = DifficultyStage(DifficultyConfig(buckets=3, min_labelled=30))
    kept, dropped = run(stage, rows)
    assert dropped.num_rows == 0 and kept.num_rows == 90
    assert kept.schema.field("difficulty").type == pa.float64()
    assert kept.schema.field("difficulty_bucket").type == pa.int32()
    out = kept.to_pylist()
    src = [r["difficulty_source"] for r in out]
    assert src.count("label") == 81 and src.count("features") == 9
    # unlabelled rows: the feature model orders them like their hidden level
    feat = [
        (int(r["id"]) % 3, r["difficulty"]) for r in out if r["difficulty_source"] == "features"
    ]
    assert spearman(np.array([a for a, _ in feat]), np.array([b for _, b in feat])) > 0.8
    assert all(r["difficulty_std"] > 0 for r in out)
    counts = np.bincount([r["difficulty_bucket"] for r in out], minlength=3)
    assert counts.tolist() == [30, 30, 30]
    # buckets follow difficulty
    by_b = [
        np.mean([r["difficulty"] for r in out if r["difficulty_bucket"] == b]) for b in range(3)
    ]
    assert by_b == sorted(by_b)
    assert stage.summary["feature_model"]["heldout_spearman"] > 0.8


def test_without_labels_or_rollouts_difficulty_is_null() -> None:
    kept, _ = run(DifficultyStage(DifficultyConfig(buckets=4)), make_rows(12, labelled=False))
    assert kept.column("difficulty").null_count == 12
    assert kept.column("difficulty_bucket").null_count == 12


def test_rollouts_fit_pass_rate_columns_and_window() -> None:
    rows = make_rows(60)
    rng = np.random.default_rng(0)
    true_b = rng.normal(0, 1.5, 60)
    lines = []
    for i in range(30):  # half the problems have rollouts of two models
        for model, theta in (("small", -0.5), ("big", 1.5)):
            p = 1 / (1 + np.exp(-(theta - true_b[i])))
            lines.append(
                {
                    "problem_id": f"src/{i}",
                    "model": model,
                    "passed": int(rng.binomial(20, p)),
                    "attempts": 20,
                }
            )
    lines.append({"problem_id": "src/0", "model": "big", "passed": True})  # one-attempt format
    lines.append({"problem_id": "elsewhere/1", "model": "big", "passed": False})
    rc = count_rollouts(lines)
    with pytest.raises(UserError, match="target-model"):
        DifficultyStage(DifficultyConfig(keep_pass_rate=(0.05, 0.95)), rollouts=rc)
    with pytest.raises(UserError, match="not in the rollouts"):
        DifficultyStage(DifficultyConfig(keep_pass_rate=(0.05, 0.95), target_model="huge"), rollouts=rc)
    stage = DifficultyStage(DifficultyConfig(buckets=5, keep_pass_rate=parse_window("0.1:0.9"), target_model="big"), rollouts=rc)
    kept, dropped = run(stage, rows)
    assert kept.num_rows + dropped.num_rows == 60
    assert stage.summary["rollouts"]["problems_not_in_shards"] == 1
    out = {r["problem_id"]: r for r in kept.to_pylist()}
    r0 = out.get("src/0")
    if r0 is not None:
        assert dict(r0["attempts"])["big"] == 21
    irt = [r for r in out.values() if r["difficulty_source"] == "irt"]
    assert irt and all(set(dict(r["pass_rate"])) == {"small", "big"} for r in irt)
    assert all(r["pass_rate"] is None for r in out.values() if r["difficulty_source"] != "irt")
    assert stage.summary["abilities"]["big"]["theta"] > stage.summary["abilities"]["small"]["theta"]
    for reason, pid in zip(
        dropped.column("reject_reason").to_pylist(), dropped.column("problem_id").to_pylist()
    ):
        assert reason.startswith("pass_rate_outside:0.1:0.9 (model=big, pass_rate=")
        i = int(pid.split("/")[1])
        assert i < 30
    assert dropped.num_rows > 0
    # buckets are balanced over the kept rows only
    counts = np.bincount(kept.column("difficulty_bucket").to_pylist(), minlength=5)
    assert counts.max() - counts.min() <= 1
    # harder fitted problems have lower observed pass rates
    d = np.array([r["difficulty"] for r in irt])
    pr = np.array([dict(r["pass_rate"])["small"] for r in irt])
    assert spearman(d, pr) < -0.7


def test_bad_window_and_buckets() -> None:
    for bad in ("0.9:0.1", "a:b", "0.5", "-1:0.5"):
        with pytest.raises(UserError):
            parse_window(bad)
    with pytest.raises(UserError):
        DifficultyStage(DifficultyConfig(buckets=0))
    with pytest.raises(UserError):
        count_rollouts([{"problem_id": "a/1", "model": "m", "passed": 3, "attempts": 2}])
    with pytest.raises(UserError):
        count_rollouts([{"problem_id": "a/1", "model": "m", "passed": 1}])


def test_unattempted_rows_are_mapped_onto_the_fitted_scale() -> None:
    # rollouts cover half the rows; true logit difficulty is a stretched version of the label's
    rows = make_rows(120)
    for r in rows:
        r["difficulty_label"] = LABELS[int(r["id"]) % 3]
    rng = np.random.default_rng(1)
    label_logit = {"Easy": -2.5, "Medium": -1.0, "Hard": 0.0}
    lines = []
    for r in rows[:60]:
        b = 3.0 * (label_logit[r["difficulty_label"]] + 1.0) + rng.normal(0, 0.3)
        p = 1 / (1 + np.exp(-(0.0 - b)))
        lines.append(
            {
                "problem_id": r["problem_id"],
                "model": "m",
                "passed": int(rng.binomial(60, p)),
                "attempts": 60,
            }
        )
    stage = DifficultyStage(DifficultyConfig(buckets=3), rollouts=count_rollouts(lines))
    kept, _ = run(stage, rows)
    out = kept.to_pylist()
    assert stage.summary["aligned_to_irt"]["beta"] > 1.5
    for lab in LABELS:
        fitted = [
            r["difficulty"]
            for r in out
            if r["difficulty_label"] == lab and r["difficulty_source"] == "irt"
        ]
        mapped = [
            r["difficulty"]
            for r in out
            if r["difficulty_label"] == lab and r["difficulty_source"] == "label"
        ]
        assert len(fitted) == 20 and len(mapped) == 20
        assert abs(np.mean(mapped) - np.mean(fitted)) < 0.05, lab
