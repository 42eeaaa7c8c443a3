"""The learning check of the problem model's allocation (issue 52): a source whose problems'
groups look informative and whose pass rates do not move when trained on (coin-flip rewards) is
not counted as learnable, on B3's measured step-0 rates (benchmarks/data/b3_step0_rates.json)
beside a coin-flip source."""

from __future__ import annotations

import numpy as np
import pytest

from mixer import FrontierSampler, FrontierSettings
from tests.mixer.test_prior import b3

COIN = 60  # problems of the coin-flip source, p = 1/2 whatever is trained


def _world() -> tuple[dict, np.ndarray, np.ndarray]:
    """B3's table with a coin-flip source whose build columns look learnable (difficulty about
    0.5), each problem's true pass logit, and the source of each problem."""
    src, d, sd, never, p = b3()
    rng = np.random.default_rng(0)
    src = np.concatenate([src, np.full(COIN, "coin")])
    d = np.concatenate([d, np.clip(rng.normal(0.5, 0.1, COIN), 0.05, 0.95)])
    sd = np.concatenate([sd, np.full(COIN, 0.1)])
    never = np.concatenate([never, np.zeros(COIN, dtype=bool)])
    p = np.concatenate([np.clip(p, 0.002, 0.998), np.full(COIN, 0.5)])
    table = {"source": src.tolist(), "difficulty": d.tolist(), "difficulty_std": sd.tolist(),
             "never_solved": never.tolist()}  # fmt: skip
    return table, np.log(p / (1 - p)), src


def _run(steps: int, learning: bool, seed: int = 0, teach: float = 0.3, draw: str = "greedy"):
    """The model's allocation alone (mixer "model") for `steps`; every informative group of a
    problem outside the coin-flip source raises its pass logit by `teach`."""
    table, logit, src = _world()
    s = FrontierSampler.from_dataset(table, 16, seed=seed, num_steps=steps, mixer="model",
                                     learning=learning, draw=draw)  # fmt: skip
    rng = np.random.default_rng(seed + 1)
    coin = src == "coin"
    share, factor = [], []
    for _ in range(steps):
        rows = np.asarray(s.next_batch())
        p = 1.0 / (1.0 + np.exp(-logit[rows]))
        rewards = (rng.random((len(rows), 8)) < p[:, None]).astype(float)
        s.learn(np.repeat(rows, 8), rewards.ravel(), weights_id=s.last_weights_id)
        informative = rewards.min(1) != rewards.max(1)
        trained = rows[informative & ~coin[rows]]
        np.add.at(logit, trained, teach)
        share.append(float(coin[rows].mean()))
        factor.append(s.learning_factor())
    return s, np.asarray(share), np.asarray(factor)


def test_a_coin_flip_source_is_not_counted_as_learnable():
    """Its problems sit at p = 1/2, so the model rates them the most learnable of all; once
    they are seen not to move when trained on while the others do, the allocation leaves
    them: after 20 steps the coin-flip source draws under a third of what it draws without the
    check."""
    on, share_on, f_on = _run(40, True)
    off, share_off, f_off = _run(40, False)
    k = on.names.index("coin")
    assert share_off[20:].mean() > 0.5  # without the check it takes most of the draws
    assert share_on[20:].mean() < share_off[20:].mean() / 3
    assert f_on[:, k].min() < 0.75  # seen not to learn: enough to leave the top of the pool
    assert np.delete(f_on, k, axis=1).min() > 0.9  # the others learn: never lowered
    assert np.allclose(f_off, 1.0)


@pytest.mark.parametrize("draw", ["greedy", "thompson"])
def test_where_training_moves_no_pass_rate_the_sources_stay_comparable(draw: str):
    """With fixed pass rates (B3's step 0, nothing taught) no source is seen to learn: each
    source is lowered by what its evidence rules out, and a source not yet measured keeps 1.
    With the posterior's Thompson draws the coin-flip source, drawn most, is lowered most; with
    the default greedy draw the problems taken are those the model rates nearest p = 1/2, whose
    next groups regress towards their true rates, so every source measured is lowered and a
    real one can read a surprise below the coin flips' (lists 0.48 against 0.69 here)."""
    on, _, f = _run(30, True, teach=0.0, draw=draw)
    k = on.names.index("coin")
    if draw == "thompson":
        assert f[-1, k] == f[-1].min() < 0.5
    else:
        measured = on._info > 0
        assert (f[-1][measured] < 1.0).all() and np.allclose(f[-1][~measured], 1.0)
    assert f[0].min() == 1.0 and (f > 0).all() and f.max() <= 1.0


def test_the_check_is_part_of_the_exact_resume():
    table, logit, src = _world()
    a = FrontierSampler.from_dataset(table, 16, seed=3, num_steps=50, mixer="model")
    rng = np.random.default_rng(3)
    p = 1.0 / (1.0 + np.exp(-logit))

    def step(s, r):
        rows = np.asarray(s.next_batch())
        rewards = (r.random((len(rows), 8)) < p[rows][:, None]).astype(float)
        s.learn(np.repeat(rows, 8), rewards.ravel(), weights_id=s.last_weights_id)
        return rows

    for _ in range(12):
        step(a, rng)
    state = a.state_dict()
    assert a._info.sum() > 0  # something to carry over
    b = FrontierSampler.from_dataset(table, 16, seed=77, num_steps=50, mixer="model")
    b.load_state_dict(state)
    assert np.array_equal(a.learning_factor(), b.learning_factor())
    ra, rb = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(5):
        assert np.array_equal(step(a, ra), step(b, rb))
        assert np.array_equal(a.mixer.weights(), b.mixer.weights())


def test_a_state_saved_before_the_check_still_loads():
    table, _, _ = _world()
    a = FrontierSampler.from_dataset(table, 16, seed=0, num_steps=10, mixer="model")
    state = a.state_dict()
    for k in ("trained", "surprise", "info"):
        state["problems"]["sampler"].pop(k)
    b = FrontierSampler.from_dataset(table, 16, seed=0, num_steps=10, mixer="model")
    b.load_state_dict(state)
    assert np.allclose(b.learning_factor(), 1.0)


def test_the_check_settings_are_validated():
    with pytest.raises(ValueError, match="learning"):
        FrontierSettings(learning_decay=0.0)
    with pytest.raises(ValueError, match="learning_prior"):
        FrontierSettings(learning_prior=0.0)
    assert FrontierSampler({"a": [0, 1], "b": [2, 3]}, 2, learning=False).settings.learning is False
