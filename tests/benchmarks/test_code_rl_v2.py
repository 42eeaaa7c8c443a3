"""B3 v2's pieces (issue 41): the task sources, the loop's rules (schedule, no step on an empty
batch, the loss at the informative groups' cost), the oracle, the trace and the report's
measures and gates. The loop end to end is in test_code_rl_smoke.py."""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from code_rl.families import V1, pretrain_pairs, problems  # noqa: E402
from code_rl.families_v2 import (  # noqa: E402
    BANDS,
    PRETRAIN_LETTERS,
    READOUT_SOURCES,
    TARGET_SOURCES,
    V2,
)
from code_rl.report import _area, _cross, choose_lr, gates, judge_stack_claim, summarize_v2  # noqa: E402


def test_v1_tasks_are_unchanged() -> None:
    """B3's problems and pre-training pairs, byte for byte as its frozen inputs were built."""
    h = hashlib.sha256()
    for r in problems():
        h.update(json.dumps(r, sort_keys=True).encode())
    for r, ref in pretrain_pairs():
        h.update(json.dumps(r, sort_keys=True).encode())
        h.update(ref.encode())
    assert h.hexdigest() == "e906b73bc553b38db21f7a8b0b5ed61f694ac06cfbc01b5a34485698edd7e0c4"
    assert problems.__defaults__ is not None and V1 in problems.__defaults__


LETTER_FAMILIES = ("suffix", "prepend", "count_char", "remove_char", "replace")


def test_v2_sources_sizes_and_disjoint_pretraining() -> None:
    recs = list(problems(tasks=V2))
    counts = Counter(r["source"] for r in recs)
    assert counts == Counter(V2.source_size) and 650 <= len(recs) <= 750
    assert set(counts) == set(TARGET_SOURCES) | set(READOUT_SOURCES) == set(BANDS)
    assert len({r["id"] for r in recs}) == len(recs)
    pre = pretrain_pairs(V2)
    rl_statements = {r["statement"].split(" For example")[0] for r in recs}
    pre_statements = {r["statement"].split(" For example")[0] for r, _ in pre}

    # no RL problem is pre-trained on, but trivial's (solved before RL by design); mislabeled
    # ones share their statements with arith and lists on purpose (their tests contradict them)
    def statements(source: str) -> set[str]:
        return {r["statement"].split(" For example")[0] for r in recs if r["source"] == source}

    shared = rl_statements & pre_statements
    assert shared <= statements("mislabeled") | statements("trivial")
    assert statements("trivial") <= pre_statements
    assert not any(r["source"] == "mislabeled" for r, _ in pre)
    # strings: every letter parameter of an RL problem is one of B3's letters; the pre-training
    # pairs of the letter families use only the other alphabet
    for r, _ in pre:
        if r["difficulty_label"] in LETTER_FAMILIES:
            quoted = r["statement"].split(" For example")[0].split("'")[1::2]
            assert quoted and all(set(q) <= set(PRETRAIN_LETTERS) for q in quoted)
    for r in recs:
        if r["difficulty_label"] in LETTER_FAMILIES:
            quoted = r["statement"].split(" For example")[0].split("'")[1::2]
            assert quoted and not any(set(q) & set(PRETRAIN_LETTERS) for q in quoted)
    # compose: one family pre-trained on, the others never
    compose_pre = {r["difficulty_label"] for r, _ in pre if r["source"] == "compose"}
    assert compose_pre == {"keep_then_sum"}


def test_cross_and_area() -> None:
    xs, ys = np.array([0.0, 100.0, 200.0]), np.array([0.4, 0.5, 0.7])
    assert _cross(xs, ys, 0.45) == pytest.approx(50.0)
    assert _cross(xs, ys, 0.4) == 0.0 and _cross(xs, ys, 0.71) is None
    # the mean of the curve over [0, 200]: trapezoids (0.45 + 0.6) / 2
    assert _area(xs, ys, 200.0) == pytest.approx(0.525, abs=2e-3)
    # past the curve's end its last value holds
    assert _area(xs, ys, 400.0) == pytest.approx((0.525 * 200 + 0.7 * 200) / 400, abs=2e-3)


def _run(arm: str, seed: int, values: list[float], rollouts_per_point: int, sources: dict) -> dict:
    curve = []
    for i, v in enumerate(values):
        curve.append(
            {
                "step": 25 * i,
                "pass1_target": v,
                "per_source": {k: s[i] for k, s in sources.items()},
                "rollouts": rollouts_per_point * i,
                "discarded_rollouts": 0,
                "skipped_prompts": 0,
                "generated_tokens": 10 * rollouts_per_point * i,
                "scoring_tokens": 0,
            }
        )
    trace = {
        "sources": ["a", "b"],
        "weights": [[0.5, 0.5]] * 4,
        "draws": [[1, 1]] * 4,
        "zero_advantage": [[1, 0]] * 4,
        "informative": [1] * 4,
        "rollouts": [16] * 4,
        "updated": [True, True, False, True],
        "draws_per_problem": [4, 4, 0, 0],
    }
    return {
        "arm": arm,
        "seed": seed,
        "curve": curve,
        "trace": trace,
        "phases": {"cpu_s": {"generation": 2.0, "update": 1.0}},
        "wall_s": 5.0,
        "loop": "lean",
        "inputs": "fp",
    }


def test_summary_and_gates_from_run_files(tmp_path: Path) -> None:
    flat = {"a": [0.5, 0.5, 0.5], "b": [0.5, 0.5, 0.5]}
    runs = {
        ("uniform", 0): _run("uniform", 0, [0.40, 0.44, 0.50], 1000, flat),
        ("uniform", 1): _run("uniform", 1, [0.40, 0.46, 0.52], 1000, flat),
        # the oracle's mean curve reaches uniform's final (0.51) at 846 rollouts of its 2000
        ("oracle", 0): _run("oracle", 0, [0.40, 0.53, 0.55], 1000, flat),
        ("oracle", 1): _run("oracle", 1, [0.40, 0.53, 0.55], 1000, flat),
        # a source collapses in one run of this arm
        ("dapo", 0): _run(
            "dapo", 0, [0.40, 0.45, 0.47], 2000, {"a": [0.6, 0.3, 0.5], "b": flat["b"]}
        ),
    }
    for (arm, seed), r in runs.items():
        f = tmp_path / arm / f"seed{seed}.json"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(r))
    s = summarize_v2(tmp_path, target=0.45, start=0.40, inputs="fp", seeds={0, 1})
    u, o, d = s["arms"]["uniform"], s["arms"]["oracle"], s["arms"]["dapo"]
    assert u["pass1"] == pytest.approx(0.51) and u["diff_vs_uniform"] == 0.0
    # mean uniform curve 0.40, 0.45, 0.51: the target at 1000 rollouts
    assert u["rollouts_to_target"] == pytest.approx(1000.0) and u["rollouts_x_uniform"] == 1.0
    assert o["rollouts_to_target_by_seed"] == [pytest.approx(5000 / 13)] * 2
    assert o["diff_vs_uniform"] == pytest.approx(0.04) and o["diff_se"] == pytest.approx(0.01)
    assert d["seeds"] == [0] and d["max_source_drop"][0] == pytest.approx(0.3)
    # the grid's headline: rollouts to uniform's mean final (0.51), which uniform's mean curve
    # reaches only at its end; per seed against the same seed's uniform final
    assert s["uniform_final"] == pytest.approx(0.51)
    assert u["rollouts_to_uniform_final"] == pytest.approx(2000.0)
    assert o["rollouts_to_uniform_final"] == pytest.approx(11000 / 13)
    assert o["uniform_final_x_uniform"] == pytest.approx(11000 / 13 / 2000)
    assert o["rollouts_to_uniform_final_by_seed"] == [
        pytest.approx(10000 / 13),
        pytest.approx(12000 / 13),
    ]
    assert d["rollouts_to_uniform_final"] is None
    assert d["rollouts_to_uniform_final_by_seed"] == [None]
    assert d["compute_to_target"] == pytest.approx(20_000.0)  # 10 tokens a rollout, at 2,000
    assert u["zero_advantage_share"] == 0.5 and u["informative_per_1k_rollouts"] == 62.5
    assert u["draws_per_drawn_problem"] == 4.0 and u["optimizer_steps"] == 3
    assert u["top_decile_draw_share"] == 0.5  # two problems drawn, four times each
    assert u["zero_advantage_by_source"] == {"a": 1.0, "b": 0.0}
    g = gates(s, tmp_path, "fp", {0, 1})
    assert g["a"]["gain_by_seed"] == {0: pytest.approx(0.10), 1: pytest.approx(0.12)}
    assert g["a"]["passed"]
    assert g["b"]["uniform_final"] == pytest.approx(0.51)
    assert g["b"]["oracle_rollouts_to_it"] == pytest.approx(11000 / 13)
    assert g["b"]["ratio"] == pytest.approx(11000 / 13 / 2000) and g["b"]["passed"]
    assert g["b"]["oracle_rollouts_to_own_seed_uniform_final"] == {
        0: pytest.approx(10000 / 13),
        1: pytest.approx(12000 / 13),
    }
    # a smaller gain on one seed fails gate (a)
    runs[("uniform", 1)]["curve"][-1]["pass1_target"] = 0.47
    (tmp_path / "uniform" / "seed1.json").write_text(json.dumps(runs[("uniform", 1)]))
    s2 = summarize_v2(tmp_path, target=0.45, start=0.40, inputs="fp", seeds={0, 1})
    assert not gates(s2, tmp_path, "fp", {0, 1})["a"]["passed"]


def test_pilot_rule_excludes_collapsing_rates() -> None:
    def summary(pass1: float, drop: float, seeds: list[int]) -> dict:
        u = {"seeds": seeds, "pass1": pass1, "pass1_by_seed": [pass1] * len(seeds)}
        return {"arms": {"uniform": {**u, "max_source_drop": (drop, "lists step 25->50")}}}

    by_lr = {5e-5: summary(0.55, 0.05, [0, 1]), 1e-4: summary(0.60, 0.1, [0, 1])}
    by_lr[2e-4] = summary(0.62, 0.35, [0, 1])  # higher, but a source collapsed
    got = choose_lr(by_lr, {0, 1})
    assert got["chosen"] == 1e-4 and not got["rates"][2e-4]["stable"]
    by_lr[1e-4] = summary(0.60, 0.1, [0])  # a rate not finished on every seed is not chosen
    assert choose_lr(by_lr, {0, 1})["chosen"] == 5e-5


def test_pilot_rule_breaks_an_exact_tie_by_stability_not_by_float_rounding() -> None:
    """B3 v2's pilot: 1e-4 and 2e-4 passed the same samples (means 0.5301670792079207 and
    ...208, one bit apart); `max` chose 2e-4 by the rounding of the sum. A tie goes to the smaller
    largest source drop (1e-4: 0.083 against 0.096)."""

    def summary(by_seed: list[float], drop: float) -> dict:
        u = {"seeds": [0, 1], "pass1": float(sum(by_seed) / 2), "pass1_by_seed": by_seed}
        return {"arms": {"uniform": {**u, "max_source_drop": (drop, "algos step 150->175")}}}

    by_lr = {
        5e-5: summary([0.49504950495049505, 0.5123762376237624], 0.068),
        1e-4: summary([0.5352722772277227, 0.5250618811881188], 0.083),
        2e-4: summary([0.5334158415841584, 0.5269183168316832], 0.096),
    }
    assert by_lr[2e-4]["arms"]["uniform"]["pass1"] > by_lr[1e-4]["arms"]["uniform"]["pass1"]
    got = choose_lr(by_lr, {0, 1})
    assert got["chosen"] == 1e-4 and got["tied"] == [1e-4, 2e-4]
    by_lr[2e-4] = summary([0.5334158415841584, 0.5369183168316832], 0.096)  # really higher
    assert choose_lr(by_lr, {0, 1})["chosen"] == 2e-4


def _needs_loop() -> None:
    """The loop's modules need the trl extra (transformers, psutil)."""
    pytest.importorskip("transformers")
    pytest.importorskip("psutil")


def test_lr_schedule_warmup_then_constant_and_b3_linear() -> None:
    _needs_loop()
    from code_rl.grpo import RunConfig, lr_factor

    v2 = RunConfig(steps=200, warmup=10, schedule="constant")
    assert [lr_factor(v2, s) for s in (0, 4, 9, 10, 199)] == [0.1, 0.5, 1.0, 1.0, 1.0]
    b3 = RunConfig(steps=60)  # B3's schedule: linear decay to 0, no warm-up
    assert [lr_factor(b3, s) for s in (0, 30, 60)] == [1.0, 0.5, 0.0]


def test_no_step_on_a_batch_without_an_informative_group() -> None:
    _needs_loop()
    from code_rl.grpo import SkipEmptyAdamW

    w = torch.nn.Parameter(torch.ones(3))
    opt = SkipEmptyAdamW([w], lr=0.1)
    (w * torch.tensor([1.0, 0.0, -1.0])).sum().backward()
    opt.step()
    moved = w.detach().clone()
    assert not torch.equal(moved, torch.ones(3))
    opt.zero_grad()
    (w * 0.0).sum().backward()  # all advantages zero: zero gradient
    opt.step()
    assert torch.equal(w.detach(), moved) and opt.skipped == 1  # plain AdamW would move it
    plain = torch.optim.AdamW([w], lr=0.1)
    (w * torch.tensor([1.0, 0.0, -1.0])).sum().backward()
    plain.step()
    plain.zero_grad()
    (w * 0.0).sum().backward()
    before = w.detach().clone()
    plain.step()
    assert not torch.equal(w.detach(), before)


def _tiny_model() -> tuple:
    from code_rl.model import SIZES, build_tokenizer, new_model

    texts = ["def f(x):\n    return x + 1\n", "Write a function f(x) that returns x plus 1."] * 20
    tok = build_tokenizer(texts, 300)
    return new_model(tok, SIZES["tiny"], 0), tok


def test_loss_at_the_informative_groups_cost_is_trl_loss() -> None:
    """Completions with advantage 0 go into the denominator only: value and gradient equal the
    loss over every completion (TRL's "dapo" at beta 0)."""
    _needs_loop()
    from code_rl.grpo import _advantages, _grpo_loss

    model, _ = _tiny_model()
    rng = np.random.default_rng(0)
    seqs = [
        (
            list(rng.integers(5, 250, size=rng.integers(5, 12))),
            list(rng.integers(5, 250, size=rng.integers(2, 9))),
        )
        for _ in range(12)
    ]
    rewards = np.array([1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1], dtype=float)
    adv = np.concatenate([_advantages(rewards[i : i + 4], 4) for i in range(0, 12, 4)])
    assert (adv[4:] == 0).all()  # two zero-advantage groups

    width = max(len(p) + len(c) for p, c in seqs)
    ids = torch.zeros((len(seqs), width), dtype=torch.long)
    mask = torch.zeros_like(ids)
    comp = torch.zeros((len(seqs), width - 1))
    for k, (p, c) in enumerate(seqs):
        off = width - len(p) - len(c)
        ids[k, off:] = torch.tensor(p + c)
        mask[k, off:] = 1
        comp[k, off + len(p) - 1 :] = 1
    pos = (mask.cumsum(1) - 1).clamp(min=0)
    logits = model(input_ids=ids, attention_mask=mask, position_ids=pos).logits[:, :-1]
    logp = torch.log_softmax(logits.float(), -1).gather(-1, ids[:, 1:, None]).squeeze(-1)
    full = -(torch.tensor(adv, dtype=torch.float32)[:, None] * logp * comp).sum() / comp.sum()
    full.backward()
    g_full = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    pruned = _grpo_loss(model, seqs, adv, "cpu")
    pruned.backward()
    assert float(pruned) == pytest.approx(float(full), rel=1e-5)
    for a, b in zip(g_full, (p.grad for p in model.parameters())):
        assert torch.allclose(a, b, atol=1e-6)
    model.zero_grad()
    _grpo_loss(model, seqs[4:], adv[4:], "cpu").backward()  # nothing informative: zero gradient
    assert all(not p.grad.any() for p in model.parameters() if p.grad is not None)


def test_oracle_draws_only_inside_its_band() -> None:
    from code_rl.oracle import OracleSampler

    groups = {"a": np.arange(0, 6), "b": np.arange(6, 10), "c": np.arange(10, 14)}
    s = OracleSampler(groups, 8, seed=3)
    first = s.next_batch()  # before a probe: as uniform
    assert len(first) == 8
    rates = np.array([0.0, 0.25, 0.5, 1.0, 0.75, 1.0, 0.0, 0.0, 0.5, 0.0, 1.0, 1.0, 1.0, 1.0])
    s.set_pass_rates(rates, step=0)
    inside = {1, 2, 4, 8}
    for _ in range(20):
        batch = s.next_batch()
        assert len(batch) == 8 and set(batch) <= inside
        out = s.learn(
            np.repeat(batch, 2), np.tile([0.0, 1.0], 8), weights_id=s.last_weights_id, group_size=2
        )
        assert out.n_groups == 8
    assert s.probes == [{"step": 0, "eligible": [3, 1, 0]}]
    assert s.mixer.weights().tolist() == pytest.approx([0.75, 0.25, 0.0])
    s.set_pass_rates(np.ones(14), step=25)  # nothing inside: as uniform again
    assert s.eligible is None and len(s.next_batch()) == 8


def test_issue40_claim_on_the_grids_seed_100_runs() -> None:
    """The registered judgement of issue 40's B3 claim, on the grid's committed seed-100 runs
    (page b3v2.md, section 12: the stack reached uniform's final 0.579 at 0.75x its rollouts,
    MoPPS never): not met on that seed, and never judged while a seed is missing."""
    root = ROOT / "benchmarks/code_rl/results/v2-full-small-r65536x4x8-fill4-lean-lr0.0001"
    if not (root / "stack" / "seed100.json").exists():
        pytest.skip("the grid's seed-100 run files are not in this checkout")
    one = summarize_v2(root, target=0.489, start=0.439, seeds={100})
    c = judge_stack_claim(one, {100})
    assert c["complete"] and c["passed"] is False
    assert c["stack_x_uniform"] == pytest.approx(0.75, abs=0.01)
    assert c["rivals_x_uniform"]["mopps"] is None and c["stack_below"]["mopps"]
    assert not c["stack_below"]["greso"]  # greso reached it sooner on this seed (0.56x)
    # judged as met when the stack is fast enough and ahead of both rivals
    fast = json.loads(json.dumps(one))
    fast["arms"]["stack"]["uniform_final_x_uniform"] = 0.4
    assert judge_stack_claim(fast, {100})["passed"] is True
    fast["arms"]["greso"]["uniform_final_x_uniform"] = 0.3
    assert judge_stack_claim(fast, {100})["passed"] is False
    # a seed missing from any of the arms the claim names: not judged
    partial = judge_stack_claim(one, {100, 101})
    assert partial["passed"] is None and not partial["complete"]
    assert partial["missing_seeds"]["stack"] == [101]
