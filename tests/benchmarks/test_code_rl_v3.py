"""B3 v3's registered measure and baselines (issue 53), on B3 v2's committed run files: the area
under held-out pass@1 over the rollout budget and rollouts to uniform's final on a fitted curve,
with paired seed-bootstrap intervals; the offline pass-rate filter of DAPO's usual practice."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from code_rl import report  # noqa: E402
from code_rl.families_v2 import TARGET_SOURCES  # noqa: E402

RUNS = ROOT / "benchmarks" / "code_rl" / "results" / "v2-full-small-r16384x4x8-fill4-lean-lr0.0001"
FROZEN = ROOT / "benchmarks" / "code_rl" / "frozen" / "v2-small"


def _start() -> float:
    """The frozen policy's held-out pass@1 on the target sources (16 samples; b3v2.md's S)."""
    per = json.loads((FROZEN / "inputs.json").read_text())["start"]["held_out"]["per_source"]
    n = sum(per[s]["problems"] for s in TARGET_SOURCES)
    return sum(per[s]["pass_rate"] * per[s]["problems"] for s in TARGET_SOURCES) / n


def test_the_fit_recovers_a_curve_of_its_own_form() -> None:
    start, budget = 0.44, 16384.0
    xs = np.tile(np.linspace(0, budget, 9), 3)
    ys = start + 0.08 * (1 - np.exp(-xs / 5000.0))
    a, tau = report.fit_curve(xs, ys, start, budget)
    assert a == pytest.approx(0.08, rel=0.05) and tau == pytest.approx(5000.0, rel=0.05)
    target = report.fitted_value((a, tau), start, budget)
    assert report.fitted_reach((a, tau), start, target) == pytest.approx(budget, rel=1e-6)
    assert report.fitted_reach((0.01, tau), start, start + 0.02) == float("inf")


def test_the_registered_measure_on_b3_v2s_fresh_seeds() -> None:
    """Section 18's runs (seeds 105-109, 16,384 rollouts): uniform's ratio is 1 by construction;
    the stack, ahead of uniform at every evaluation there, reaches uniform's fitted final in fewer
    rollouts with an interval around its point; the bootstrap is paired and reproducible."""
    runs = report._load(RUNS, seeds={105, 106, 107, 108, 109})
    runs = {k: runs[k] for k in ("uniform", "stack", "mopps")}
    m = report.registered_measure(runs, _start(), 16384, versus=("mopps",), boots=100)
    assert m["seeds"] == [105, 106, 107, 108, 109]
    uni, stack = m["arms"]["uniform"], m["arms"]["stack"]
    assert uni["rollouts_to_base_final_x"] == pytest.approx(1.0)
    assert 0 < stack["rollouts_to_base_final_x"] < 1
    lo, hi = stack["ratio_boot"]["interval"]
    assert lo <= stack["rollouts_to_base_final_x"] <= hi and stack["ratio_boot"]["se"] > 0
    assert stack["area"] > uni["area"] and stack["vs"]["uniform"]["area_diff"] > 0
    assert stack["vs"]["uniform"]["area_diff_se"] > 0
    assert set(stack["vs"]) == {"uniform", "mopps"}
    again = report.registered_measure(runs, _start(), 16384, versus=("mopps",), boots=100)
    assert json.dumps(again) == json.dumps(m)
    judged = report.judge_v3_claim(m)
    assert judged["arm"] == "stack" and judged["below_dapo_filter_beyond_2se"] is None
    assert judged["passed"] is False  # no DAPO-with-filter arm ran in B3 v2


def test_the_offline_filter_drops_what_the_ranking_always_or_never_passes(tmp_path: Path) -> None:
    pytest.importorskip("psutil", reason="the benchmark's loop needs the trl extra")
    from code_rl.grpo import offline_filter, ranking_pass_rates
    from datasets import load_from_disk

    train = load_from_disk(str(FROZEN / "trl"))["train"]
    ids = list(train["problem_id"])
    lines = [
        {"problem_id": ids[0], "model": "a", "passed": 4, "attempts": 4},
        {"problem_id": ids[0], "model": "b", "passed": 4, "attempts": 4},  # always passes
        {"problem_id": ids[1], "model": "a", "passed": 0, "attempts": 4},  # never passes
        {"problem_id": ids[2], "model": "a", "passed": 0, "attempts": 4},
        {"problem_id": ids[2], "model": "b", "passed": 1, "attempts": 4},  # 1 of 8: kept
    ]
    f = tmp_path / "rollouts.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    rates = ranking_pass_rates(f)
    assert rates == {ids[0]: 1.0, ids[1]: 0.0, ids[2]: 0.125}
    kept = offline_filter(train, rates, (1e-9, 1 - 1e-9))
    assert len(kept) == len(train) - 2
    assert ids[0] not in kept["problem_id"] and ids[1] not in kept["problem_id"]
    assert ids[2] in kept["problem_id"]  # and problems the ranking never attempted stay
    with pytest.raises(ValueError, match="keeps no train problem"):
        offline_filter(train.select([0, 1]), rates, (1e-9, 1 - 1e-9))


def test_the_top_b_oracle_draws_the_most_informative_of_fresh_probes() -> None:
    """B3 v3's oracle in the lean loop on the frozen model: each round it probes `pool` problems
    at a time with the policy being trained (counted apart from the arm's rollouts), never the
    same one twice in a round, until `enough` are live or `most` probed, and draws the B whose
    probe is most informative (b3v3.md section 5, amendment 2)."""
    pytest.importorskip("transformers", reason="the benchmark's model needs the trl extra")
    pytest.importorskip("psutil", reason="the benchmark's loop needs the trl extra")
    from code_rl.grpo import Arm, RunConfig, make_sampler, run_lean
    from code_rl.oracle import TopBOracle
    from datasets import load_from_disk

    ds = load_from_disk(str(FROZEN / "trl"))
    train, held = ds["train"].select(range(0, 480, 12)), ds["test"].select(range(0, 240, 24))
    kw = {"pool": 8, "samples": 2, "enough": 3, "most": 20}
    arm = Arm("oracle-topb", problems="oracle-topb", problem_kw=kw)
    cfg = RunConfig(steps=2, prompts=2, group=2, max_new_tokens=24, eval_every=2,
                    eval_samples=1, final_samples=1, lr=1e-4, schedule="constant")  # fmt: skip
    s = make_sampler(arm, train, cfg, seed=0)
    assert isinstance(s, TopBOracle)
    s.begin_round()
    first = s.candidates()
    assert len(first) == 8 == len(set(first.tolist()))
    s.record(first, np.array([0.0, 1.0, 0.5, 0.0, 1.0, 0.0, 1.0, 0.0]))  # one live: not enough
    second = s.candidates()
    assert len(second) == 8 and not set(second.tolist()) & set(first.tolist())
    s.record(second, np.array([0.0, 0.25, 0.0, 1.0, 1.0, 0.75, 0.0, 0.0]))  # three live
    assert len(s.candidates()) == 0  # enough live: the round's probes end
    s.choose()  # p(1 - p): 0.25 for first[2], 0.1875 for second[1] and second[5]
    drawn = s.next_batch()
    assert drawn[0] == int(first[2]) and drawn[1] in (int(second[1]), int(second[5]))
    assert s.probes[-1] == {
        "candidates": 16,
        "live": 3,
        "chosen_info": round((0.25 + 0.1875) / 2, 4),
    }
    s.begin_round()  # with nothing live, a round stops at `most` probed (8 + 8 + 4)
    sizes = []
    while len(c := s.candidates()):
        sizes.append(len(c))
        s.record(c, np.zeros(len(c)))
    assert sizes == [8, 8, 4]
    from code_rl.model import load

    model, tok = load(FROZEN / "checkpoint")
    run = run_lean(model, tok, train, held, arm, cfg, seed=0)
    points = run["probe"]["points"]
    assert len(points) == 2  # one round a step here
    assert run["probe"]["rollouts"] == 2 * sum(p["candidates"] for p in points)
    assert all(
        p["candidates"] in (8, 16, 20) and (p["live"] >= 3 or p["candidates"] == 20) for p in points
    )
    assert run["probe"]["settings"] == kw
    assert run["curve"][-1]["rollouts"] == 2 * 2 * 2  # the arm's own rollouts only


def test_the_other_models_prior_is_codemix_s_fit_and_compared_like_v2s() -> None:
    """other_prior.py: the item-response fit orders problems by how often the ranking models pass
    them, and `compare` of v2's prior against the committed probe of the frozen policy gives the
    probe's own Spearman (-0.959 overall, b3v3.md section 6b)."""
    pytest.importorskip("psutil", reason="the benchmark's loop needs the trl extra")
    from code_rl.other_prior import compare, fit_difficulty
    from datasets import concatenate_datasets, load_from_disk

    lines = [
        {"problem_id": p, "model": m, "passed": k, "attempts": 4}
        for m in ("a", "b")
        for p, k in (("easy", 4), ("mid", 2), ("hard", 0))
    ]
    d = fit_difficulty(lines, ["easy", "mid", "hard"])
    assert d["easy"] < d["mid"] < d["hard"]
    probe = json.loads((RUNS.parent / "v3-prior" / "policy-probe.json").read_text())
    ds = load_from_disk(str(FROZEN / "trl"))
    rows = concatenate_datasets([ds["train"], ds["test"]])
    v2 = dict(zip(rows["problem_id"], rows["difficulty"], strict=True))
    sources = dict(zip(rows["problem_id"], rows["source"], strict=True))
    got = compare(v2, probe, sources)
    assert got["overall"] == probe["spearman_prior"] == pytest.approx(-0.959, abs=1e-3)
    for s, v in probe["per_source"].items():
        assert got["per_source"][s] == v["spearman_prior"]


def test_the_v3_summary_measures_the_arms_with_every_seed_and_judges_only_a_whole_grid() -> None:
    """`measure_v3` on B3 v2's committed runs: the budget is the runs' registered rollouts, an arm
    short of uniform's seeds is named and not measured, each measured arm carries its
    zero-advantage share and informative groups on the measure's seeds and its final pass@1 paired
    against uniform (no held-out families in v2's runs: that column stays empty);
    `judge_v3_claim` waits for every registered seed and for DAPO-with-filter; gate (a) reads
    uniform's mean final on the development seeds."""
    fresh = {105, 106, 107, 108, 109}
    m = report.measure_v3(RUNS, _start(), None, fresh, boots=50)
    assert m["budget"] == 16384 and m["seeds"] == sorted(fresh) and m["short_of_seeds"] == {}
    stack = m["arms"]["stack"]
    summary = report.summarize_v2(RUNS, _start() + 0.05, _start(), seeds=fresh)
    assert stack["trace"]["zero_advantage_share"] == pytest.approx(
        summary["arms"]["stack"]["zero_advantage_share"]
    )
    fin = stack["final"]
    assert set(fin) == {report.METRIC}  # v2's runs evaluated no held-out families
    assert fin[report.METRIC]["vs"]["uniform"]["diff"] == pytest.approx(
        summary["arms"]["stack"]["diff_vs_uniform"]
    )
    assert fin[report.METRIC]["vs"]["uniform"]["se"] == pytest.approx(
        summary["arms"]["stack"]["diff_se"]
    )
    rows = report.table_v3(m).splitlines()[3:]
    assert len(rows) == len(m["arms"]) and all(r.count("|") == 10 for r in rows)
    # with the development seeds too, only uniform ran them all
    both = report.measure_v3(RUNS, _start(), None, fresh | {0, 1}, boots=50)
    assert set(both["arms"]) == {"uniform"} and both["short_of_seeds"]["stack"] == [0, 1]
    judged = report.judge_v3_claim(m, complete=set(range(200, 210)))
    assert judged["passed"] is None and judged["missing_seeds"] == list(range(200, 210))
    judged = report.judge_v3_claim(m, complete=fresh)
    assert judged["passed"] is None and judged["missing_arms"] == ["dapo-filter"]
    g = report.gates_v3({"start": _start()}, RUNS, None, {0, 1})
    finals = [
        report._load(RUNS, seeds={s})["uniform"][s]["curve"][-1][report.METRIC] for s in (0, 1)
    ]
    assert g["a"]["mean_gain"] == pytest.approx(np.mean(finals) - _start())
    assert "b" not in g  # no oracle-topb run


def test_the_v3_table_carries_the_priors_spearman_from_the_committed_record() -> None:
    """The table's head says the v3 prior's and v2's Spearman with the policy's step-0 pass rates
    (other_prior.py's committed record), as the registration asks."""
    sp = report.prior_spearman()
    assert sp is not None and sp["v3 (other models)"]["overall"] == pytest.approx(-0.6031)
    assert sp["v2"]["inside sources"] == pytest.approx(-0.7096)
    m = report.measure_v3(RUNS, _start(), None, {105, 106, 107, 108, 109}, boots=20)
    head = report.table_v3(m, sp).splitlines()[0]
    assert "-0.6031" in head and "-0.9593" in head
