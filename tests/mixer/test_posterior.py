"""BetaPosteriorSampler (MoPPS): the decayed Beta update, Thompson draws towards the target rate,
fewer zero-advantage groups than uniform on a fixed policy, and an exact resume."""

from __future__ import annotations

import numpy as np
import pytest

from mixer import BetaPosteriorSampler, ProblemSampler, make_problem_sampler


def test_update_is_the_decayed_beta_posterior() -> None:
    s = BetaPosteriorSampler({"a": range(4)}, batch_size=2, decay=0.5, prior=(1.0, 2.0), seed=0)
    batch = s.next_batch()
    j = batch[0]
    # 4 completions of problem j: 3 passed, one with partial credit 0.5
    s.learn([j] * 4, [1.0, 1.0, 1.0, 0.5], weights_id=s.last_weights_id, group_size=4)
    assert s.alpha[j] == pytest.approx(0.5 * 1.0 + 0.5 * 1.0 + 3.5)
    assert s.beta[j] == pytest.approx(0.5 * 2.0 + 0.5 * 2.0 + 0.5)
    others = [k for k in range(4) if k != j]
    assert np.all(s.alpha[others] == 1.0) and np.all(s.beta[others] == 2.0)
    # a group whose every reward is a sandbox fault teaches nothing and leaves the posterior alone
    before = (s.alpha[j], s.beta[j])
    s.next_batch()
    s.observe([j] * 2, [np.nan, np.nan], group_size=2)
    assert (s.alpha[j], s.beta[j]) == before


def test_draws_the_problems_near_the_target_rate() -> None:
    rate = np.array([0.0] * 10 + [0.5] * 10 + [1.0] * 10)
    rng = np.random.default_rng(0)
    s = BetaPosteriorSampler({"a": range(30)}, batch_size=10, decay=1.0, seed=1)
    for _ in range(40):  # learn every problem's rate from rollouts of all of them
        p = np.repeat(np.arange(30), 8)
        s.observe(p, (rng.random(p.size) < rate[p]).astype(float), group_size=8)
    picks = np.concatenate([s.next_batch() for _ in range(20)])
    assert np.mean((picks >= 10) & (picks < 20)) > 0.9
    assert s.posterior_mean([0, 15, 29]) == pytest.approx([0.0, 0.5, 1.0], abs=0.05)


def test_fewer_zero_advantage_groups_than_uniform() -> None:
    rng = np.random.default_rng(3)
    solve = np.concatenate([np.zeros(100), rng.uniform(0.2, 0.8, 50), np.ones(100)])
    groups = {"a": range(0, 125), "b": range(125, 250)}
    zero = {}
    for name, sampler in (
        ("uniform", ProblemSampler(groups, batch_size=16, seed=0)),
        ("mopps", BetaPosteriorSampler(groups, batch_size=16, seed=0)),
    ):
        for _ in range(80):
            p = np.repeat(sampler.next_batch(), 8)
            r = (rng.random(p.size) < solve[p]).astype(float)
            sampler.learn(p, r, weights_id=sampler.last_weights_id, group_size=8)
        zero[name] = sampler.ledger["zero_advantage_groups"] / sampler.ledger["groups"]
    assert zero["uniform"] > 0.7
    assert zero["mopps"] < zero["uniform"] - 0.2


def test_resume_draws_the_same_batches() -> None:
    rng = np.random.default_rng(4)
    a = make_problem_sampler("mopps", {"x": range(20), "y": range(20, 50)}, 6, seed=2, decay=0.8)
    assert isinstance(a, BetaPosteriorSampler) and not a.drops_groups
    for _ in range(5):
        p = np.repeat(a.next_batch(), 4)
        a.learn(p, rng.random(p.size).round(), weights_id=a.last_weights_id, group_size=4)
    b = BetaPosteriorSampler({"x": range(20), "y": range(20, 50)}, 6, seed=2, decay=0.8)
    b.load_state_dict(a.state_dict())
    assert [a.next_batch() for _ in range(4)] == [b.next_batch() for _ in range(4)]
    np.testing.assert_array_equal(a.alpha, b.alpha)


def test_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="decay"):
        BetaPosteriorSampler({"a": range(3)}, 2, decay=1.5)
    with pytest.raises(ValueError, match="prior"):
        BetaPosteriorSampler({"a": range(3)}, 2, prior=(0.0, 1.0))
    with pytest.raises(ValueError, match="target"):
        BetaPosteriorSampler({"a": range(3)}, 2, target=-0.1)
