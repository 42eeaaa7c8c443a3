"""The problem-level baselines in the sampler interface: uniform, DAPO's dynamic sampling, the
pass-rate band and GRESO; group bookkeeping, rollout ledger and state."""

from __future__ import annotations

import numpy as np
import pytest

from mixer import GRESO, DynamicSampling, PassRateBand, ProblemSampler

G = 4


def _groups(n: int = 40) -> dict[str, range]:
    return {"a": range(n // 2), "b": range(n // 2, n)}


def test_uniform_keeps_every_group_and_feeds_the_mixer_with_the_batch_weights():
    s = ProblemSampler(_groups(), 8, mixer="advantage-bandit", seed=0)
    idx = s.next_batch()
    wid = s.last_weights_id
    w = s.mixer.weights().copy()
    rep = np.repeat(idx, G)
    r = np.tile([1.0, 0.0, 0.0, 0.0], len(idx))
    out = s.learn(rep, r, weights_id=wid)
    assert out.keep.all() and out.n_groups == len(set(idx))
    assert out.mean == pytest.approx(np.full(out.n_groups, 0.25))
    assert not out.zero_advantage.any()
    rec = s.mixer.history[-1]
    assert rec["weights_id"] == wid and rec["weights"] == pytest.approx(w.tolist())
    assert sum(rec["counts"]) == out.n_groups
    assert s.ledger["rollouts"] == len(r) and s.ledger["discarded_rollouts"] == 0


def test_group_ids_keep_two_groups_of_one_problem_apart():
    s = ProblemSampler(_groups(), 2)
    out = s.observe([3] * 4, [1.0, 1.0, 0.0, 1.0], group_ids=["u1", "u1", "u2", "u2"])
    assert out.n_groups == 2 and list(out.zero_advantage) == [True, False]
    merged = s.observe([3] * 4, [1.0, 1.0, 0.0, 1.0])
    assert merged.n_groups == 1 and not merged.zero_advantage[0]
    by_size = s.observe([3, 3, 3, 3], [1.0, 1.0, 0.0, 1.0], group_size=2)
    assert by_size.n_groups == 2 and list(by_size.zero_advantage) == [True, False]
    with pytest.raises(ValueError, match="different problems"):
        s.observe([3, 4], [1.0, 0.0], group_ids=["u", "u"])
    with pytest.raises(ValueError, match="different problems"):
        s.observe([3, 4], [1.0, 0.0], group_size=2)
    with pytest.raises(ValueError, match="group_size=3"):
        s.observe([3, 3, 3, 3], [1.0, 1.0, 0.0, 1.0], group_size=3)


def test_dynamic_sampling_drops_all_equal_groups_and_counts_them():
    s = DynamicSampling(_groups(), 3)
    out = s.observe(
        np.repeat([0, 1, 2], G),
        [1, 1, 1, 1] + [0, 0, 0, 0] + [1, 0, 1, 0],
    )
    assert list(out.keep_group) == [False, False, True]
    assert list(out.keep) == [False] * 8 + [True] * 4
    assert s.ledger["discarded_rollouts"] == 8 and s.ledger["zero_advantage_groups"] == 2


def test_dapo_refill_loop_counts_every_generated_rollout():
    """The trainer's loop: draw and generate until a full batch of groups with a signal is kept."""
    rng = np.random.default_rng(0)
    p = np.where(np.arange(40) < 30, 1.0, 0.5)  # three quarters always solved
    s = DynamicSampling(_groups(), 8, seed=0)
    kept, rounds = 0, 0
    while kept < 8:
        rounds += 1
        rep = np.repeat(s.next_batch(), G)
        out = s.learn(rep, (rng.random(rep.size) < p[rep]).astype(float), weights_id=s.last_weights_id)
        kept += int(out.keep_group.sum())
    assert rounds > 1
    assert s.ledger["rollouts"] == rounds * 8 * G
    assert s.ledger["discarded_rollouts"] >= s.ledger["rollouts"] - kept * G


def test_pass_rate_band_keeps_the_middle():
    s = PassRateBand(_groups(), 4, band=(0.25, 0.75))
    out = s.observe(
        np.repeat([0, 1, 2, 3], G),
        [1, 0, 0, 0] + [1, 1, 0, 0] + [1, 1, 1, 0] + [0.5, 0.5, 0.5, 0.5],
    )
    assert list(out.keep_group) == [True, True, True, False]  # 0.5 each: in band, no signal
    with pytest.raises(ValueError, match="band"):
        PassRateBand(_groups(), 4, band=(0.8, 0.2))


def test_greso_skips_prompts_solved_again_and_again_and_adapts():
    s = GRESO({"a": range(10)}, 5, seed=0, p_easy=0.5)
    for _ in range(3):  # problems 0..4 always solved, 5..9 mixed
        s.observe(
            np.repeat(np.arange(10), G),
            np.concatenate([np.ones(5 * G), np.tile([1.0, 0.0], 5 * G // 2)]),
        )
    assert (
        (s.run_len[:5] == 3).all() and (s.run_kind[:5] == 1).all() and (s.run_kind[5:] == 0).all()
    )
    p_skip = s._skip_probability(np.arange(10))
    assert p_skip[:5] == pytest.approx(1 - s.p_easy**3) and (p_skip[5:] == 0).all()
    assert s.p_easy < 0.5  # half the groups were all solved, above the 1/12 target: skip more
    drawn = np.concatenate([s.next_batch() for _ in range(40)])
    assert np.mean(drawn >= 5) > 0.7 and s.ledger["skipped_prompts"] > 0
    st = s.state_dict()
    t = GRESO({"a": range(10)}, 5, seed=0)
    t.load_state_dict(st)
    assert t.p_easy == s.p_easy and (t.run_len == s.run_len).all()
    assert t.next_batch() == s.next_batch()


def test_greso_fills_batches_even_when_every_prompt_would_be_skipped():
    s = GRESO({"a": range(6)}, 6, seed=0, p_easy=0.05, p_bounds=(0.05, 0.05))
    for _ in range(6):
        s.observe(np.repeat(np.arange(6), G), np.ones(6 * G))
    assert len(s.next_batch()) == 6  # keep probability never drops below 0.01


def test_filters_refuse_stop_and_bad_reward_scales():
    with pytest.raises(ValueError, match="recycle"):
        GRESO(_groups(), 4, exhaust="stop")
    with pytest.raises(ValueError, match="reward_range"):
        DynamicSampling(_groups(), 4, reward_range=(1.0, 1.0))
