"""FrontierSampler's `score="learnability-low"` (E[p (1 - p)^2] under the model's posterior):
correct expectation, draws that lean to the problems still mostly failed, and the edges the
default score handles (NaN difficulties, a source with one problem, group size 1, rewards not 0/1)."""

from __future__ import annotations

import numpy as np
import pytest

from mixer import FrontierSampler, PassRateModel

G = 8


def _unit(b):
    return 1.0 / (1.0 + np.exp(-b))


def test_expectation_matches_monte_carlo_over_the_posterior():
    b = np.array([-4.0, -1.0, 0.0, 1.0, 4.0])
    m = PassRateModel(np.zeros(5, int), 1, b, np.full(5, 1.0))
    mean, var = m.predict(np.arange(5))
    z = np.random.default_rng(0).normal(size=400_000)
    for j in range(5):
        p = _unit(mean[j] + np.sqrt(var[j]) * z)
        assert m.learnability_low(np.array([j]))[0] == pytest.approx(
            np.mean(p * (1 - p) ** 2), rel=0.03
        )


@pytest.mark.parametrize("draw", ["proportional", "thompson"])
def test_it_prefers_problems_failed_over_problems_nearly_solved(draw):
    """Two problems with the same p (1 - p): p = 0.2 and p = 0.8 (known precisely). The default
    score ties them; learnability-low draws the failed one four times as often in proportion
    (0.128 : 0.032), and always by a posterior draw (0.2 lies nearer its target, 1/3)."""
    b = np.repeat([np.log(4.0), -np.log(4.0)], 50)  # sigmoid(-b) = 0.2 and 0.8
    d = _unit(b)
    counts = {}
    for score in ("learnability", "learnability-low"):
        s = FrontierSampler(
            {"a": range(100)},
            10,
            difficulty=d,
            difficulty_std=np.full(100, 0.0),
            score=score,
            draw=draw,
            mixer="uniform",
            explore=0.0,
            model={
                "tau": 0.0,
                "min_std": 1e-3,
                "ability_prior": (0.0, 1e-3),
                "slope_prior": (1.0, 1e-3),
            },
            seed=0,
        )
        low = sum(int((np.asarray(s.next_batch()) < 50).sum()) for _ in range(200))
        counts[score] = low / 2000
    assert counts["learnability"] == pytest.approx(0.5, abs=0.1)
    low = 0.8 if draw == "proportional" else 1.0
    assert counts["learnability-low"] == pytest.approx(low, abs=0.05)


def test_edges_nan_one_problem_group_one_partial_credit():
    s = FrontierSampler(
        {"a": range(6), "one": [6]},
        6,
        difficulty=[0.1, np.nan, 0.5, 0.7, 0.9, np.nan, np.nan],
        score="learnability-low",
        reward_range=(-1.0, 1.0),
        seed=0,
    )
    for _ in range(15):
        idx = np.asarray(s.next_batch())
        r = np.where(idx < 3, 1.0, np.where(idx == 6, 0.5, -1.0))
        s.learn(idx, r, weights_id=s.last_weights_id)  # group size 1
    sc = s.scores(range(7))
    assert np.isfinite(sc).all() and (sc >= 0).all() and (sc <= 4 / 27 + 1e-9).all()
    assert np.isfinite(s.predicted_pass_rate(range(7))).all()
