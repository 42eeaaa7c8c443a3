"""`codemix rank`: difficulty from rollouts written into a build's shards, window drops to rejected/."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.commands.rank import rank_build
from curation.record_files import records_to_table
from curation.schema import normalize_record
from curation.store import read_manifest, sha256_file, write_json, write_shards
from filters.contracts import KEPT_BASE_SCHEMA, REJECTED_SCHEMA
from filters.stages.difficulty import plot_calibration, spearman

LABELS = ["EASY", "MEDIUM", "HARD", None]


def make_build(out: Path, n: int = 40) -> list[float]:
    """A finished build of `n` problems in two shards, and the true logit difficulty of each."""
    rng = np.random.default_rng(3)
    recs = []
    for i in range(n):
        recs.append(
            normalize_record(
                {
                    "id": str(i),
                    "source": "taco" if i % 2 else "apps",
                    "statement": f"Problem {i}: read n and print n. 1 ≤ n ≤ 10^{1 + i % 6}",
                    "test_type": "stdio",
                    "tests": [{"input": "1\n", "output": "1\n"}],
                    "solutions": ["print(input())"],
                    "difficulty_label": LABELS[i % 4],
                }
            )
        )
    files = write_shards([records_to_table(recs)], out / "problems", 25, KEPT_BASE_SCHEMA)
    write_shards([], out / "rejected", 25, REJECTED_SCHEMA)
    by_src = {"apps": n // 2, "taco": n - n // 2}
    write_json(
        out / "manifest.json",
        {
            "schema_version": 1,
            "config": {"sources": [{"name": "taco"}, {"name": "apps"}]},
            "counts": {
                "input": by_src,
                "output": by_src,
                "rejected": 0,
                "stages": [
                    {
                        "stage": "exact_id",
                        "in": by_src,
                        "kept": by_src,
                        "dropped": {},
                        "reasons": {},
                    }
                ],
            },
            "problems": files,
            "rejected": [],
        },
    )
    return list(rng.normal(0, 1.5, n))


def write_rollouts(path: Path, true_b: list[float], per_attempt: bool = False) -> None:
    rng = np.random.default_rng(4)
    with open(path, "w") as f:
        for i, b in enumerate(true_b):
            src = "taco" if i % 2 else "apps"
            for model, theta in (("m-small", -0.5), ("m-big", 1.5)):
                p = 1 / (1 + np.exp(-(theta - b)))
                if per_attempt:
                    for _ in range(10):
                        f.write(
                            json.dumps(
                                {
                                    "problem_id": f"{src}/{i}",
                                    "model": model,
                                    "passed": bool(rng.random() < p),
                                }
                            )
                            + "\n"
                        )
                else:
                    k = int(rng.binomial(25, p))
                    f.write(
                        json.dumps(
                            {
                                "problem_id": f"{src}/{i}",
                                "model": model,
                                "passed": k,
                                "attempts": 25,
                            }
                        )
                        + "\n"
                    )


def test_rank_writes_columns_window_rejects_and_manifest(tmp_path: Path) -> None:
    out = tmp_path / "build"
    true_b = make_build(out)
    write_rollouts(tmp_path / "r.jsonl", true_b)
    s = rank_build(
        out, tmp_path / "r.jsonl", buckets=4, keep_pass_rate="0.05:0.95", target_model="m-big"
    )
    kept = pq.read_table(out / "problems")
    for col in (
        "difficulty",
        "difficulty_std",
        "difficulty_source",
        "difficulty_bucket",
        "pass_rate",
        "attempts",
    ):
        assert col in kept.column_names
    rows = kept.to_pylist()
    assert {r["difficulty_source"] for r in rows} == {"irt"}
    idx = [int(r["id"]) for r in rows]
    assert (
        spearman(np.array([r["difficulty"] for r in rows]), np.array([true_b[i] for i in idx]))
        > 0.85
    )
    rej = [f for f in (out / "rejected").glob("rank-*.parquet")]
    assert len(rej) == 1
    rt = pq.read_table(rej[0])
    assert rt.schema.names == REJECTED_SCHEMA.names
    assert set(rt.column("reject_stage").to_pylist()) == {"rank"}
    for reason, detail in zip(
        rt.column("reject_reason").to_pylist(), rt.column("reject_detail").to_pylist()
    ):
        assert reason.startswith("pass_rate_outside:0.05:0.95 (model=m-big, pass_rate=")
        rate = json.loads(detail)["pass_rate"]
        assert rate < 0.05 or rate > 0.95
    assert kept.num_rows + rt.num_rows == 40
    m = read_manifest(out)
    assert sum(m["counts"]["output"].values()) == kept.num_rows
    assert m["counts"]["rejected"] == rt.num_rows
    assert m["counts"]["stages"][-1]["stage"] == "rank"
    for entry in m["problems"]:
        assert sha256_file(out / entry["file"]) == entry["sha256"]
    assert m["rank"]["abilities"]["m-big"]["theta"] > m["rank"]["abilities"]["m-small"]["theta"]
    assert not list(out.glob(".problems*"))
    assert s["funnel"]["dropped"] or rt.num_rows == 0
    assert (
        plot_calibration(kept, tmp_path / "cal.png")
        and (tmp_path / "cal.png").stat().st_size > 1000
    )
    assert plot_calibration(kept, tmp_path / "cal2.png", abilities=m["rank"]["abilities"])
    assert not plot_calibration(kept.drop_columns(["pass_rate"]), tmp_path / "none.png")
    assert not (tmp_path / "none.png").exists()


def test_rank_cli_2pl_per_attempt_lines_and_info(tmp_path: Path) -> None:
    out = tmp_path / "build"
    true_b = make_build(out)
    write_rollouts(tmp_path / "r.jsonl", true_b, per_attempt=True)
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "rank",
            str(out),
            "--rollouts",
            str(tmp_path / "r.jsonl"),
            "--model-2pl",
            "--buckets",
            "5",
        ],
    )
    assert res.exit_code == 0, res.output
    kept = pq.read_table(out / "problems")
    att = [dict(a) for a in kept.column("attempts").to_pylist()]
    assert all(a == {"m-big": 10, "m-small": 10} for a in att)
    assert sorted(np.bincount(kept.column("difficulty_bucket").to_pylist()).tolist()) == [8] * 5
    info = runner.invoke(app, ["info", str(out)])
    assert info.exit_code == 0, info.output
    assert "difficulty" in info.output
    # ranking again is idempotent in shape (columns replaced, not duplicated)
    res = runner.invoke(app, ["rank", str(out), "--rollouts", str(tmp_path / "r.jsonl")])
    assert res.exit_code == 0, res.output
    assert pq.read_table(out / "problems").column_names.count("difficulty") == 1


def test_rank_user_errors(tmp_path: Path) -> None:
    out = tmp_path / "build"
    make_build(out)
    from filters.contracts import UserError

    with pytest.raises(UserError, match="does not exist"):
        rank_build(out, tmp_path / "missing.jsonl")
    (tmp_path / "bad.jsonl").write_text('{"problem_id": "taco/1", "model": "m"}\n')
    with pytest.raises(UserError, match="line 1"):
        rank_build(out, tmp_path / "bad.jsonl")
    with pytest.raises(UserError, match="no parquet shards"):
        rank_build(tmp_path / "nowhere", tmp_path / "bad.jsonl")


def test_rollouts_command_judges_completions_then_rank(tmp_path: Path) -> None:
    out = tmp_path / "build"
    recs = [
        normalize_record(
            {
                "id": "add",
                "source": "s",
                "statement": "Read a and b, print a+b.",
                "test_type": "stdio",
                "tests": [
                    {"input": "1 2\n", "output": "3\n"},
                    {"input": "5 5\n", "output": "10\n"},
                ],
                "solutions": ["a,b=map(int,input().split());print(a+b)"],
                "difficulty_label": "EASY",
            }
        ),
        normalize_record(
            {
                "id": "mul",
                "source": "s",
                "statement": "Read a and b, print a*b.",
                "test_type": "stdio",
                "tests": [
                    {"input": "2 3\n", "output": "6\n"},
                    {"input": "4 5\n", "output": "20\n"},
                ],
                "solutions": ["a,b=map(int,input().split());print(a*b)"],
                "difficulty_label": "HARD",
            }
        ),
    ]
    write_shards([records_to_table(recs)], out / "problems", 10, KEPT_BASE_SCHEMA)
    good_add = "Here you go:\n```python\na, b = map(int, input().split())\nprint(a + b)\n```"
    good_mul = "```python\na, b = map(int, input().split())\nprint(a * b)\n```"
    wrong = "```python\nprint(3)\n```"
    lines = [
        ("s/add", good_add),
        ("s/add", good_add),
        ("s/add", wrong),
        ("s/mul", wrong),
        ("s/mul", "I cannot solve this."),
        ("s/mul", good_mul),
        ("s/none", good_add),
    ]
    comp = tmp_path / "comp.jsonl"
    comp.write_text(
        "".join(json.dumps({"problem_id": p, "completion": c}) + "\n" for p, c in lines)
    )
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "rollouts",
            str(out),
            "--completions",
            str(comp),
            "--model",
            "m1",
            "--out",
            str(tmp_path / "roll.jsonl"),
            "--workers",
            "1",
        ],
    )
    assert res.exit_code == 0, res.output
    got = [json.loads(x) for x in (tmp_path / "roll.jsonl").read_text().splitlines()]
    assert [(g["problem_id"], g["passed"], g["verdict"]) for g in got] == [
        ("s/add", True, "AC"),
        ("s/add", True, "AC"),
        ("s/add", False, "WA"),
        ("s/mul", False, "WA"),
        ("s/mul", False, "CE"),
        ("s/mul", True, "AC"),
    ]
    assert all(g["model"] == "m1" for g in got)
    s = rank_build(out, tmp_path / "roll.jsonl", buckets=2)
    kept = {r["problem_id"]: r for r in pq.read_table(out / "problems").to_pylist()}
    assert dict(kept["s/add"]["pass_rate"])["m1"] == pytest.approx(2 / 3)
    assert dict(kept["s/mul"]["pass_rate"])["m1"] == pytest.approx(1 / 3)
    assert kept["s/mul"]["difficulty"] > kept["s/add"]["difficulty"]
    assert s["difficulty_source"] == {"irt": 2}


def test_an_export_says_which_problems_no_ranking_model_solved(tmp_path: Path) -> None:
    """A sampler's prior reads `never_solved` (issue 40): true where the build ranked the problem
    from rollouts and every model failed it, false where one passed, null without rollouts."""
    from datasets import load_from_disk

    from curation import export

    out = tmp_path / "build"
    make_build(out, n=12)
    with open(tmp_path / "r.jsonl", "w") as f:
        for i in range(10):  # problems 10 and 11 get no rollouts
            src = "taco" if i % 2 else "apps"
            for model in ("m1", "m2"):
                passed = 0 if i < 4 else (3 if model == "m2" else 0)
                f.write(json.dumps({"problem_id": f"{src}/{i}", "model": model, "passed": passed,
                                    "attempts": 4}) + "\n")  # fmt: skip
    rank_build(out, tmp_path / "r.jsonl", buckets=2)
    export(out, "trl", tmp_path / "trl")
    rows = load_from_disk(str(tmp_path / "trl"))["train"]
    got = {pid: ns for pid, ns in zip(rows["problem_id"], rows["never_solved"], strict=True)}
    idx = {pid: int(pid.split("/")[1]) for pid in got}
    assert {pid for pid, ns in got.items() if ns} == {pid for pid, i in idx.items() if i < 4}
    assert all(got[pid] is None for pid, i in idx.items() if i >= 10)
    export(out, "verl", tmp_path / "verl")
    table = pq.read_table(tmp_path / "verl" / "train.parquet")
    assert sum(bool(x) for x in table.column("never_solved").to_pylist()) == 4
