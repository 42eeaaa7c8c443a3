"""The default source weights (issue 52): the problem model's allocation each step, and ACODM's
correction on top, on B3's measured step-0 rates (benchmarks/data/b3_step0_rates.json)."""

from __future__ import annotations

import numpy as np
import pytest

from mixer import FrontierSampler
from mixer.policies import make_mixer
from mixer.policies.model import ACODMResidual, CorrectionSettings, ModelAllocation
from tests.mixer.test_prior import b3


def _table(never_solved: np.ndarray | None = None) -> dict:
    src, d, sd, never, _ = b3()
    ns = never if never_solved is None else never_solved
    return {"source": src.tolist(), "difficulty": d.tolist(), "difficulty_std": sd.tolist(),
            "never_solved": ns.tolist()}  # fmt: skip


def _step(s: FrontierSampler, p: np.ndarray, rng: np.random.Generator, **fb: float) -> np.ndarray:
    rows = np.asarray(s.next_batch())
    rewards = (rng.random((len(rows), 8)) < p[rows][:, None]).astype(float)
    s.learn(np.repeat(rows, 8), rewards.ravel(), weights_id=s.last_weights_id, **fb)
    return rows


def test_the_default_follows_the_model_to_a_source_flagged_never_solved_that_is_live():
    """compose is flagged never solved in B3's build (75 of 78 problems); if the policy passes it
    at p 0.3 (and, as a policy does, passes a problem more often once trained on it), the
    weights find it within a few steps, as the model learns it. (Where pass rates never move
    the learning check lowers it again once tried: tests/mixer/test_learning_check.py.)"""
    src, _, _, _, p = b3()
    names = sorted(set(src.tolist()))
    k = names.index("compose")
    truth = np.clip(np.where(src == "compose", 0.3, p), 1e-3, 1 - 1e-3)
    logit = np.log(truth / (1 - truth))
    s = FrontierSampler.from_dataset(_table(), 16, seed=0, num_steps=100)
    assert isinstance(s.mixer, ACODMResidual)
    start = s.mixer.weights()[k]
    rng = np.random.default_rng(0)
    for _ in range(8):
        rows = np.asarray(s.next_batch())
        pr = 1.0 / (1.0 + np.exp(-logit[rows]))
        rewards = (rng.random((len(rows), 8)) < pr[:, None]).astype(float)
        s.learn(np.repeat(rows, 8), rewards.ravel(), weights_id=s.last_weights_id)
        np.add.at(logit, rows[rewards.min(1) != rewards.max(1)], 0.3)  # trained: a bit easier
    assert start < 0.1 and s.mixer.weights()[k] > 2 * start
    assert np.allclose(s.mixer.rho, 0.0)  # no evaluation given: no correction


def test_the_correction_holds_down_a_source_whose_groups_hurt_the_evaluation():
    """The trainer's evaluation worsens with every informative group of mislabeled drawn and
    improves with the others': the correction lowers mislabeled below the model's allocation;
    with the correction off the weights are the allocation."""
    src, _, _, _, p = b3()
    names = sorted(set(src.tolist()))
    h = names.index("mislabeled")
    truth = np.where(src == "mislabeled", 0.3, p)  # looks learnable
    runs = {}
    for on in (True, False):
        s = FrontierSampler.from_dataset(_table(), 16, seed=1, num_steps=100,
                                         mixer_kwargs={"correction": on})  # fmt: skip
        rng, noise = np.random.default_rng(1), np.random.default_rng(2)
        loss = 1.0
        for _ in range(80):  # the gate waits for a significant difference: ~60 steps here
            rows = _step(s, truth, rng, eval_loss=loss)
            loss += 0.002 * float((src[rows] == "mislabeled").sum())
            loss -= 0.001 * float((src[rows] != "mislabeled").sum()) + 0.0005 * noise.normal()
        runs[on] = s.mixer
    on, off = runs[True], runs[False]
    # (before the mixer's floor: the allocation itself swings between the floor and most of the
    # weight here, as the learning check reads fixed rates)
    assert on.rho[h] < -1.0 and on._policy[h] < 0.5 * on.allocation[h]
    assert np.allclose(off.rho, 0.0) or not off.settings.correction
    assert np.allclose(off._policy, off.allocation)


def test_settings_are_validated_once_and_given_one_way():
    with pytest.raises(ValueError, match="actor_rate"):
        CorrectionSettings(actor_rate=0.0)
    with pytest.raises(ValueError, match="not both"):
        ACODMResidual(3, settings=CorrectionSettings(), strength=2.0)
    assert ACODMResidual(3, strength=2.0).settings.strength == 2.0
    with pytest.raises(ValueError, match="optimism"):
        make_mixer("model", 3, optimism=-1.0)


def test_without_a_model_the_allocation_is_the_prior_and_stays():
    m = ModelAllocation(3)
    assert m.set_prior([0.5, 0.2, 0.1], [0.6, 0.3, 0.1])
    w0 = m.weights()
    m.update({"reward": [0.5, 0.5, 0.5], "counts": [4, 4, 4]})
    assert np.allclose(m.weights(), w0)


def test_resume_of_the_default_is_exact():
    src, _, _, _, p = b3()
    a = FrontierSampler.from_dataset(_table(), 16, seed=3, num_steps=50)
    rng = np.random.default_rng(3)
    for t in range(6):
        _step(a, p, rng, eval_loss=1.0 - 0.01 * t)
    state = a.state_dict()
    b = FrontierSampler.from_dataset(_table(), 16, seed=99, num_steps=50)
    b.load_state_dict(state)
    ra, rb = np.random.default_rng(4), np.random.default_rng(4)
    for t in range(4):
        xa = _step(a, p, ra, eval_loss=0.9 - 0.01 * t)
        xb = _step(b, p, rb, eval_loss=0.9 - 0.01 * t)
        assert np.array_equal(xa, xb)
        assert np.array_equal(a.mixer.weights(), b.mixer.weights())


def _lowest_residual_on_a_flat_evaluation(seed: int, steps: int = 60) -> float:
    """The default on B3's fixed rates with an evaluation that moves by noise only: the lowest
    residual any source reached over the run (0: none lowered)."""
    _, _, _, _, p = b3()
    s = FrontierSampler.from_dataset(_table(), 16, seed=seed, num_steps=100)
    rng, noise = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    m = s.mixer
    assert isinstance(m, ACODMResidual)
    lowest = 0.0
    for _ in range(steps):
        _step(s, p, rng, eval_loss=1.0 + 0.002 * noise.normal())
        lowest = min(lowest, float(m.rho.min()))
    return lowest


def test_a_flat_evaluation_seldom_lowers_a_source():
    """Where the evaluation does not move, any source the correction lowers is lowered by
    chance. Over 40 seeds at most 18 runs lower one by more than 0.05 in log-weight at some step
    and at most 12 by more than 1 (measured 16 and 10, as before the critic's scale was fixed at
    `threshold` 2, which finds a source that hurts later: 22 steps against 17). `threshold` 2
    halves the rate and lost 0.028 of the replay's gap over the first 10 steps where a source
    learns and hurts (benchmarks/pages/mixing-generated.md, "The flat-evaluation defect")."""
    lowest = np.array([_lowest_residual_on_a_flat_evaluation(seed) for seed in range(40)])
    assert (lowest < -0.05).sum() <= 18, lowest
    assert (lowest < -1.0).sum() <= 12, lowest


def test_the_critics_scale_is_the_rms_of_the_drops_it_has_read():
    """The unit the critic reads drops in: their plain RMS over the first 20, not the first drop
    alone (then a moving average)."""
    m = ACODMResidual(3)
    drops = [0.001, 0.02, -0.015, 0.01]
    loss = 1.0
    m.update({"counts": [4, 4, 4], "zero_adv": [0.5, 0.5, 0.5], "eval_loss": loss})
    for i, d in enumerate(drops):
        loss -= d
        m.update({"counts": [4, 4, 4], "zero_adv": [0.5, 0.5, 0.5], "eval_loss": loss})
        assert m.y_scale == pytest.approx(np.sqrt(np.mean(np.square(drops[: i + 1]))))
    assert m.drops == len(drops)


def _harm_run(
    m: ACODMResidual, rng: np.random.Generator, steps: int, sign: float, loss: float
) -> float:
    """Source 0 alone is drawn (16 groups a step, 4-16 of them informative); each of its
    informative groups moves the evaluation by `sign` x 0.001, with noise of sd 0.002."""
    for _ in range(steps):
        inf0 = int(rng.integers(4, 17))
        m.update({"counts": [16, 0, 0], "zero_adv": [1 - inf0 / 16, np.nan, np.nan],
                  "reward": [0.5, np.nan, np.nan], "eval_loss": loss})  # fmt: skip
        loss += sign * 0.001 * inf0 + 0.002 * float(rng.normal())
    return loss


def test_the_absolute_test_holds_down_a_source_whose_groups_surely_hurt_with_nothing_to_compare():
    """No other source is drawn, so the comparisons have no reference: only the absolute test
    (`harm`: the source's value, against the per-step intercept, is surely below 0) lowers it;
    a source whose groups help is left alone; resume mid-run is exact."""
    ends = {}
    for harm, sign in ((True, 1.0), (False, 1.0), (True, -1.0)):
        m = ACODMResidual(3, harm=harm)
        _harm_run(m, np.random.default_rng(0), 60, sign, 1.0)
        ends[harm, sign] = m
    hurt = ends[True, 1.0]
    assert hurt.theta[1] + hurt.settings.threshold * np.sqrt(hurt.cov[1, 1]) < 0
    assert hurt.rho[0] < -4.0 and hurt.weights()[0] < 0.05
    assert np.allclose(ends[False, 1.0].rho, 0.0) and np.allclose(ends[True, -1.0].rho, 0.0)
    # resume: a copy loaded mid-run goes on exactly as the original
    a, rng = ACODMResidual(3), np.random.default_rng(1)
    loss = _harm_run(a, rng, 40, 1.0, 1.0)
    b = ACODMResidual(3)
    b.load_state_dict(a.state_dict())
    assert a.rho[0] < 0  # the absolute test is acting when the state is saved
    _harm_run(a, np.random.default_rng(2), 20, 1.0, loss)
    _harm_run(b, np.random.default_rng(2), 20, 1.0, loss)
    assert np.array_equal(a.rho, b.rho) and np.array_equal(a.weights(), b.weights())
    assert np.array_equal(a.theta, b.theta) and np.array_equal(a.cov, b.cov)
