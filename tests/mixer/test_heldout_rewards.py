"""ACODM's held-out rewards (`target`, `heldout`), its allocation and coefficient scaling."""

from __future__ import annotations

import numpy as np
import pytest

from mixer import ACODM, Feedback, target_scores
from tests.mixer.streams import run_stream

N = 6
FAV = 2


def test_target_scores_are_projections_on_the_target_direction() -> None:
    t = np.array([2.0, 0.0, 0.0])
    g = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-2.0, 2.0, 0.0], [np.nan] * 3])
    proj, cos = target_scores(g, t)
    assert np.allclose(proj[:3], [1.0, 0.0, -2.0])
    assert np.allclose(cos[:3], [1.0, 0.0, -1 / np.sqrt(2)])
    assert np.isnan(proj[3]) and np.isnan(cos[3])
    assert np.isnan(target_scores(g, np.zeros(3))[0]).all()


def test_feedback_checks_the_target_sketch_and_carries_dev_loss() -> None:
    fb = Feedback(counts=[1, 1], grad_sketch=np.ones((2, 4)), target_sketch=np.ones(4))
    assert fb.target_sketch.shape == (4,)
    with pytest.raises(ValueError, match="target_sketch"):
        Feedback(counts=[1, 1], grad_sketch=np.ones((2, 4)), target_sketch=np.ones(3))
    assert Feedback(counts=[1, 1], target_sketch=[np.nan, 1.0]).target_sketch is None
    fb = Feedback(counts=[1, 0], dev_loss=[2.0, 1.5])
    assert np.allclose(fb.get("dev_loss"), [2.0, 1.5])
    assert "target_sketch" not in fb.to_json() and fb.to_json()["dev_loss"] == [2.0, 1.5]
    with pytest.raises(ValueError, match="dev_loss"):
        Feedback(counts=[1, 1], dev_loss=[1.0, 2.0, 3.0])


@pytest.mark.parametrize("reward", ["target", "heldout"])
def test_held_out_rewards_move_toward_the_source_that_helps_held_out(reward: str) -> None:
    m = ACODM(N, reward=reward, seed=0, warmup=10)
    W = run_stream(m, reward, FAV, steps=150)
    late = W[-30:].mean(axis=0)
    assert late.argmax() == FAV, late
    # the source that hurts held-out (target) / memorises its training set (heldout) is not favoured
    assert late[(FAV + 1) % N] < 1.0 / N, late


def test_allocation_shares_by_value() -> None:
    """Two useful sources (value 2 and 1) and four useless ones, every step the same."""
    rng = np.random.default_rng(0)
    value = np.array([2.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    m = ACODM(N, reward="heldout", seed=0, warmup=5)
    dev = np.full(N, 10.0)
    W = []
    for _ in range(200):
        W.append(m.weights())
        dev = dev - 0.01 * value * (1 + 0.2 * rng.standard_normal(N))
        m.update(Feedback(counts=np.full(N, 8), dev_loss=dev))
    p = np.array(W[-50:]).mean(axis=0)
    assert p[0] > p[1] > p[2:].max(), p
    assert p[1] > 0.2, p  # the second-best source keeps a real share (diminishing returns)
    assert 1.3 < p[0] / p[1] < 4.0, p


def test_power_sharpens_proportional_shares() -> None:
    """Values 2 and 1: shares about 2:1 at power 1 and about 4:1 at power 2, with less left to
    the useless sources."""
    rng = np.random.default_rng(0)
    value = np.array([2.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    late = {}
    for power in (1.0, 2.0):
        m = ACODM(N, reward="heldout", power=power, seed=0, warmup=5)
        dev = np.full(N, 10.0)
        W = []
        for _ in range(200):
            W.append(m.weights())
            dev = dev - 0.01 * value * (1 + 0.2 * rng.standard_normal(N))
            m.update(Feedback(counts=np.full(N, 8), dev_loss=dev))
        late[power] = np.array(W[-50:]).mean(axis=0)
    r1, r2 = late[1.0][0] / late[1.0][1], late[2.0][0] / late[2.0][1]
    assert r2 > 1.5 * r1, (late[1.0], late[2.0])
    assert late[2.0][2:].sum() < late[1.0][2:].sum()
    with pytest.raises(ValueError, match="power"):
        ACODM(N, power=0.0)


def test_coefficient_scale_comes_from_the_data_not_a_fixed_start() -> None:
    """Held-out drops of 1e-5 per step must steer the mixer as well as drops of 1 would.

    (Before, the running RMS started at 1.0 and took over a hundred steps to shrink to the data's
    scale, so small raw rewards were ignored early.)"""
    rng = np.random.default_rng(1)
    results = []
    for scale in (1e-5, 1.0):
        m = ACODM(N, reward="heldout", seed=0, warmup=5)
        dev = np.zeros(N)
        W = []
        for _ in range(80):
            W.append(m.weights())
            drop = np.where(np.arange(N) == FAV, 1.0, 0.1) * (1 + 0.3 * rng.standard_normal(N))
            dev = dev - scale * drop
            m.update(Feedback(counts=np.full(N, 8), dev_loss=dev))
        results.append(np.array(W[-20:]).mean(axis=0))
    small, large = results
    assert small.argmax() == FAV and small[FAV] > 2.0 / N, small
    assert abs(small[FAV] - large[FAV]) < 0.1, (small, large)


def test_heldout_state_round_trip_keeps_the_last_dev_loss() -> None:
    a = ACODM(N, reward="heldout", seed=0, warmup=3)
    run_stream(a, "heldout", FAV, steps=20)
    b = ACODM(N, reward="heldout", seed=5, warmup=3)  # the same configuration, another seed
    b.load_state_dict(a.state_dict())
    assert np.array_equal(a.last_dev, b.last_dev)
    Wa = run_stream(a, "heldout", FAV, steps=10, seed=4)
    Wb = run_stream(b, "heldout", FAV, steps=10, seed=4)
    assert np.array_equal(Wa, Wb)


def test_a_reward_whose_feedback_never_comes_is_an_error_not_a_silent_uniform() -> None:
    m = ACODM(4, reward="heldout", seed=0)
    with pytest.raises(ValueError, match="dev_loss"):
        for _ in range(2 * m.warmup + 10):  # it waits two warm-ups (at least 50 steps)
            m.update(Feedback(counts=[2, 2, 2, 2], loss=[1.0, 2.0, 3.0, 4.0]))
    ok = ACODM(4, reward="heldout", seed=0)
    for t in range(60):  # measured only every 10 steps: fine
        dev = [3.0 - 0.01 * t] * 4 if t % 10 == 0 else None
        ok.update(Feedback(counts=[2, 2, 2, 2], dev_loss=dev))
