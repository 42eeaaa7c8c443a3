"""Smoke run of benchmarks/mixing/sampling_replay.py: a few steps of each kind of arm on B3's rates count
every rollout and order the ceiling, the stack and uniform (not the headline: that is the page)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "mixing"


def test_a_short_replay_counts_rollouts_and_orders_oracle_stack_uniform() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import sampling_replay as replay
    finally:
        sys.path.remove(str(BENCH))
    runs = {arm: replay.run(arm, "b3", 0, 15, 16, 8)
            for arm in ("uniform", "stack", "oracle", "dapo", "speed", "greso")}  # fmt: skip
    per_step = 16 * 8
    assert runs["uniform"]["rollouts"] == runs["stack"]["rollouts"] == 15 * per_step
    for arm in ("dapo", "speed", "greso"):  # refills and probes are rollouts too
        assert runs[arm]["rollouts"] >= 15 * 2 * 16 and runs[arm]["rounds"] >= 1
    inf = {arm: r["inf_per_rollout"] for arm, r in runs.items()}
    assert inf["oracle"] > inf["stack"] > 2 * inf["uniform"]
    assert len(runs["stack"]["per_step"]["weights"]) == 15  # the mixer's weights, every step
    summary = replay.summarise(list(runs.values()))["b3"]
    assert summary["oracle"]["gap_closed"][0] == 1.0 and summary["uniform"]["gap_closed"][0] == 0.0


def test_generated_scenarios_are_seeded_and_read_as_registered() -> None:
    """A generated scenario is the same for every run seed but its per-run draws, carries its own
    G and B, counts every rollout, and `family` reads a block as the page registers it."""
    sys.path.insert(0, str(BENCH))
    try:
        import sampling_replay as replay
    finally:
        sys.path.remove(str(BENCH))
    a, b = replay.generate_world(3, 40, 0), replay.generate_world(3, 40, 1)
    assert a.names == b.names and a.spec == b.spec and (a.difficulty[a.flags] >= 0.97).all()
    assert a.problem_id == b.problem_id and a.group in (4, 8, 16) and a.batch in (8, 16, 32)
    runs = [replay.run(arm, "g3", seed, 12, 0, 0)
            for arm in ("uniform", "oracle", "stack", "frontier+model") for seed in (0, 1)]  # fmt: skip
    assert all(r["rollouts"] == 12 * a.group * a.batch for r in runs)
    fam = replay.family(runs, versus=("frontier+model",))
    assert fam["scenarios"] == 1 and fam["as good as frontier+model"] in (0, 1)
    oracle = [r["inf_per_rollout"] for r in runs if r["arm"] == "oracle"]
    uniform = [r["inf_per_rollout"] for r in runs if r["arm"] == "uniform"]
    assert min(oracle) > max(uniform)


def test_an_interrupted_block_resumes_from_its_finished_scenarios(tmp_path: Path) -> None:
    """Each finished scenario goes to <out>.partial.jsonl; the same command run again takes
    those and runs the rest, and reads as the uninterrupted run (the file goes once done)."""
    import json
    import os
    import subprocess

    cmd = [sys.executable, str(BENCH / "sampling_replay.py"), "--generated", "3-4", "--seeds", "0",
           "--steps", "6", "--arms", "stack"]  # fmt: skip
    env = dict(os.environ, OMP_NUM_THREADS="1")
    whole = tmp_path / "whole.json"
    subprocess.run([*cmd, "--out", str(whole)], check=True, env=env, capture_output=True)
    assert not (tmp_path / "whole.json.partial.jsonl").exists()
    rec = json.loads(whole.read_text())
    first = [r for r in rec["runs"] if r["scenario"] == "g3"]
    key = {"seeds": [0], "arms": ["uniform", "stack", "oracle"], "steps": 6, "batch": 16, "group": 8}
    resumed = tmp_path / "resumed.json"
    partial = tmp_path / "resumed.json.partial.jsonl"
    partial.write_text(json.dumps({"key": key, "scenario": "g3", "runs": first}) + "\n")
    out = subprocess.run([*cmd, "--out", str(resumed)], check=True, env=env, capture_output=True,
                         text=True)  # fmt: skip
    assert "resuming: 1 scenarios" in out.stdout and not partial.exists()
    again = json.loads(resumed.read_text())
    def strip(runs: list[dict]) -> list[dict]:  # the timings differ between two runs
        return [{k: v for k, v in r.items() if k not in ("wall_s", "overhead_ms_per_step")}
                for r in runs]  # fmt: skip

    assert strip(again["runs"]) == strip(rec["runs"]) and again["family"] == rec["family"]


def test_the_second_family_adds_a_source_that_learns_and_hurts_and_keeps_the_first() -> None:
    """`h<seed>` is `g<seed>` plus, where drawn, a source whose pass rates rise when trained and
    whose groups lower two live sources (the target's evaluation falls): the first family's
    problems, build columns and draws are unchanged."""
    sys.path.insert(0, str(BENCH))
    try:
        import numpy as np
        import sampling_replay as replay
    finally:
        sys.path.remove(str(BENCH))
    g, h = replay.generate_world(4, 40, 0), replay.generate_world(4, 40, 0, hacks=True)
    assert g.harmful is None and h.spec["harm"] == "hacks" and h.harmful not in g.names
    n = len(g.logit)
    assert np.array_equal(h.logit[:n], g.logit) and np.array_equal(h.difficulty[:n], g.difficulty)
    assert {k: v for k, v in h.spec.items() if k not in ("sources", "gain", "victims", "harm")} == {
        k: v for k, v in g.spec.items() if k not in ("sources", "gain", "victims", "harm")
    }
    hk = h.names.index(h.harmful)
    victims = [h.names.index(v) for v in h.spec["victims"]]
    rates, evals = h.pass_rates(), h.eval_loss()
    for _ in range(20):  # train on the hacking source alone
        h.advance(np.flatnonzero(h.src == hk)[:8])
    after = h.pass_rates()
    assert after[h.src == hk].mean() > rates[h.src == hk].mean()  # it learns
    for v in victims:
        assert after[h.src == v].mean() < rates[h.src == v].mean()  # and hurts
    assert h.eval_loss() > evals and not h.useful(np.flatnonzero(h.src == hk)).any()


def test_an_arm_trains_on_the_harmful_sources_groups_and_counts_only_the_others() -> None:
    """The trainer trains on every informative group it draws, the harmful source's too (that is
    how it hurts: before this test the arms passed only the useful groups to `advance`, so the
    harmful source of the generated families never learnt and never hurt); only the count of
    informative groups leaves it out."""
    sys.path.insert(0, str(BENCH))
    try:
        import numpy as np
        import sampling_replay as replay
    finally:
        sys.path.remove(str(BENCH))
    w = replay.generate_world(4, 30, 0, hacks=True)
    assert w.spec["harm"] == "hacks" and not w.spec.get("noise")
    hk = w.names.index(w.harmful)
    victims = [w.names.index(v) for v in w.spec["victims"]]
    arm = replay.ARMS["uniform"](w, w.batch, w.group, 30, 0)
    rng = np.random.default_rng(0)
    harm_trained = 0
    for _ in range(30):
        r = arm.step(w, rng)
        harm = w.src[r.trained] == hk
        assert r.informative == int((~harm).sum())
        harm_trained += int(harm.sum())
        before = w.ability.copy()
        w.advance(r.trained)
        if harm.any():  # its groups lower the victims (by 0.03 each) and raise its own ability
            assert w.ability[hk] > before[hk]
    assert harm_trained > 0
    oracle = replay.ARMS["oracle"](w, w.batch, w.group, 30, 0).step(w, rng)
    assert not (w.src[oracle.trained] == hk).any()  # the oracle never draws it
    assert all(np.isfinite(w.ability[v]) for v in victims)


def test_the_cost_for_concentration_is_an_option_that_leaves_the_registered_worlds_as_they_were() -> None:
    """`c<seed>` is `h<seed>` with the cost for concentration: the k-th informative group trained
    on one problem carries k^-1 of its source's gain to the held-out target, so training the same
    problem again raises it but carries less than training a new one. `h<seed>` (every registered
    block's world) gives the numbers it gave before the option existed (measured on d05e7d6)."""
    sys.path.insert(0, str(BENCH))
    try:
        import numpy as np
        import sampling_replay as replay
    finally:
        sys.path.remove(str(BENCH))
    uniform, stack = replay.run("uniform", "h4", 0, 12, 0, 0), replay.run("stack", "h4", 0, 12, 0, 0)
    assert (uniform["informative"], uniform["distinct_problems"]) == (93, 188)
    assert (stack["informative"], stack["distinct_problems"]) == (43, 98)
    assert uniform["target_end"] == 0.3643502542518139 and stack["target_end"] == 0.20882265486017165
    h, c = replay.make_world("h3", 40, 0), replay.make_world("c3", 40, 0)
    assert h.carry_power == 0 and c.carry_power == replay.CARRY_POWER == 1.0
    assert np.array_equal(h.logit, c.logit) and h.spec == c.spec
    k = int(np.bincount(h.src).argmax())  # the largest source (h3: s02, 230 problems, useful)
    live = np.flatnonzero(h.src == k)
    assert len(live) >= 64
    same, spread = replay.make_world("c3", 40, 0), replay.make_world("c3", 40, 0)
    for step in range(8):  # 8 groups a step: one problem 8 times, or 8 new problems each step
        same.advance(np.repeat(live[:1], 8))
        spread.advance(live[8 * step : 8 * step + 8])
    assert same.pass_rates()[live[0]] > spread.pass_rates()[live[0]]  # its own rate rises more
    assert spread.ability[k] > 2 * same.ability[k] > 0  # its source (H(64) against 64 groups / 8)
    assert spread.held_out() > same.held_out()  # and so the held-out target, less
    free = replay.make_world("h3", 40, 0)
    for _ in range(8):  # without the cost, repeats carry in full
        free.advance(np.repeat(live[:1], 8))
    assert np.allclose(free.ability, spread.ability)
