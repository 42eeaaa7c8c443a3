"""PassRateModel's per-(source, curated-difficulty bin) offsets (`bins`): a problem not attempted
recently borrows its neighbours' current pass rate; the option is off by default, round-trips
through the sampler's state exactly, and keeps every edge the model without it handles."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch

from mixer import FrontierSampler, PassRateModel

G = 8


def _unit(b):
    return 1.0 / (1.0 + np.exp(-b))


def _kinds(n_per: int = 400):
    """One source, three kinds on a label-like scale (logit difficulty -2, 0, 2), as the label
    prior gives B2-spread's copy, add and muladd problems."""
    b = np.repeat([-2.0, 0.0, 2.0], n_per)
    return b, np.zeros(b.size, dtype=np.int64)


def _train(model, p, rng, steps, pick):
    for _ in range(steps):
        j = pick(rng)
        model.observe(j, rng.binomial(G, p[j]).astype(float), np.full(j.size, float(G)))


def test_bins_are_quantiles_of_the_curated_difficulty_per_source():
    b = np.array([0.0, 1.0, 2.0, 3.0, 5.0, 5.0, 5.0, np.nan])
    src = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    m = PassRateModel(src, 2, b, None, bins=2)
    assert m.bin[:4].tolist() == [0, 0, 1, 1]  # source 0: below and above its median
    assert m.bin[4:].tolist() == [
        2,
        2,
        2,
        2,
    ]  # source 1: one value (and a NaN at its mean): one bin
    assert m.n_bins == 3 and m.cov.shape == (2 + 1 + 3, 2 + 1 + 3)
    off = PassRateModel(src, 2, b, None)
    assert off.n_bins == 0 and off.cov.shape == (3, 3)  # the default adds nothing


def test_a_kind_learnt_off_the_line_is_predicted_for_its_unattempted_problems():
    """The policy has learnt the middle kind (p 0.9) but not the hard one (p 0.1), the easy one
    solved: no line in the difficulty fits it. With bins, the middle kind's never-attempted
    problems are predicted from their neighbours' current rate."""
    b, src = _kinds()
    p = np.where(b < -1, 0.97, np.where(b > 1, 0.1, 0.9))
    err = {}
    for bins in (0, 3):
        rng = np.random.default_rng(0)
        m = PassRateModel(src, 1, b, np.full(b.size, 0.3), bins=bins)
        seen = rng.choice(b.size, 600, replace=False)
        _train(m, p, rng, 30, lambda g, seen=seen: g.choice(seen, 40, replace=False))
        unseen = np.setdiff1d(np.arange(b.size), seen)
        err[bins] = float(np.abs(m.pass_rate(unseen) - p[unseen]).mean())
    assert err[3] < 0.02 and err[3] < err[0] / 3  # (0.007 against 0.046 when written)


def test_a_stale_problem_borrows_its_bins_current_rate():
    """The middle kind was failed (1/8), then learnt (p 0.97) while the easy kind stays at 0.5 and
    the hard one at 0.03: no line in the difficulty fits that. Problem 0 of the middle kind was
    attempted once, while its kind was failed. With bins its prediction follows its kind now;
    without, the line's compromise holds it near 0.5."""
    b, src = _kinds(200)
    mid = np.flatnonzero(b == 0.0)
    pred = {}
    for bins in (0, 3):
        m = PassRateModel(src, 1, b, np.full(b.size, 0.3), bins=bins)
        rng = np.random.default_rng(1)

        def step(p_mid, stale=False, m=m, rng=rng):
            j = np.concatenate([rng.choice(mid[1:], 20), rng.choice(np.flatnonzero(b != 0), 20)])
            k = np.round(G * np.where(b[j] == 0.0, p_mid, np.where(b[j] < 0, 0.5, 0.03)))
            if stale:
                j, k = np.append(j, mid[0]), np.append(k, 1.0)
            m.observe(j, k, np.full(j.size, float(G)))

        for _ in range(20):
            step(0.1)
        step(0.1, stale=True)
        assert m.pass_rate(mid[:1])[0] < 0.2
        for _ in range(60):
            step(0.97)
        assert m.last[mid[0]] == 21  # not attempted since
        pred[bins] = float(m.pass_rate(mid[:1])[0])
    assert pred[3] > 0.85 and pred[0] < 0.6


def test_state_round_trips_exactly_through_the_sampler():
    rng = np.random.default_rng(5)
    n = 300
    b = rng.normal(0, 2, n)
    p = _unit(-b)

    def make():
        return FrontierSampler(
            {"a": range(150), "b": range(150, 300)},
            24,
            difficulty=_unit(b),
            seed=7,
            model={"bins": 4},
        )

    def step(s, g):
        idx = np.asarray(s.next_batch())
        rep = np.repeat(idx, G)
        s.learn(rep, (g.random(rep.size) < p[rep]).astype(float), weights_id=s.last_weights_id)

    a = make()
    for _ in range(6):
        step(a, rng)
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    c = make()
    c.load_state_dict(torch.load(buf, weights_only=True))
    np.testing.assert_array_equal(a.model.u, c.model.u)
    np.testing.assert_array_equal(a.model.cov, c.model.cov)
    ra, rc = np.random.default_rng(11), np.random.default_rng(11)
    for _ in range(5):
        step(a, ra)
        step(c, rc)
        assert list(a.last_problems) == list(c.last_problems)
    np.testing.assert_array_equal(a.predicted_pass_rate(range(n)), c.predicted_pass_rate(range(n)))
    assert a.ledger == c.ledger
    # a state without bins does not load into a model with them, nor the other way
    plain = FrontierSampler({"a": range(150), "b": range(150, 300)}, 24, difficulty=_unit(b))
    with pytest.raises(ValueError, match="difficulty bins"):
        plain.model.load_state(a.model.state())
    with pytest.raises(ValueError, match="difficulty bins"):
        make().model.load_state(plain.model.state())


def test_nan_difficulties_no_prior_one_problem_group_one_and_partial_credit():
    # NaN difficulties go to their source's mean and so to its middle bin; no prior: one bin
    s = FrontierSampler(
        {"a": range(6), "one": [6]},
        6,
        difficulty=[0.1, 0.3, np.nan, 0.7, 0.9, np.nan, np.nan],
        model={"bins": 3},
        reward_range=(-1.0, 1.0),
        seed=0,
    )
    assert s.model.n_bins == 4  # three in "a", one for the lone problem
    none = FrontierSampler(
        {"a": range(6), "one": [6]}, 6, model={"bins": 3}, reward_range=(-1.0, 1.0)
    )
    assert none.model.n_bins == 2
    for sampler in (s, none):
        for _ in range(15):  # group size 1, rewards on [-1, 1] with partial credit
            idx = np.asarray(sampler.next_batch())
            r = np.where(idx < 3, 1.0, np.where(idx == 6, 0.5, -1.0))
            sampler.learn(idx, r, weights_id=sampler.last_weights_id)
        pr = sampler.predicted_pass_rate(range(7))
        assert np.isfinite(pr).all() and np.isfinite(sampler.scores(range(7))).all()
        assert pr[:3].mean() > pr[3:6].mean()
    s2 = FrontierSampler({"a": range(4)}, 4, reward_range=(-1.0, 1.0), model={"bins": 2})
    s2.next_batch()
    out = s2.learn(
        np.repeat(np.arange(4), 4), np.tile([1.0, -1.0, 0.0, 0.5], 4), weights_id=s2.last_weights_id
    )
    assert out.mean == pytest.approx([0.5625] * 4) and np.isfinite(s2.model.u).all()


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"bins": -1}, "bins"),
        ({"bins": 1.5}, "bins"),
        ({"bins": True}, "bins"),
        ({"bin_std": 0.0}, "bin_std"),
    ],
)
def test_bad_bin_settings_get_a_clear_error(kw, match):
    with pytest.raises(ValueError, match=match):
        PassRateModel(np.zeros(3, int), 1, np.zeros(3), None, **kw)
