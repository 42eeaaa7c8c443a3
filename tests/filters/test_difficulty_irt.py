"""Item-response fit: recovers known difficulties from simulated attempts, with calibrated stds."""

from __future__ import annotations

import numpy as np
import pytest

from filters.stages.difficulty import fit_irt, logit_to_unit, spearman, unit_to_logit


def simulate(
    seed: int,
    n_problems: int,
    attempts: int,
    theta: np.ndarray,
    disc: np.ndarray | None = None,
    spread: float = 1.5,
):
    rng = np.random.default_rng(seed)
    b = rng.normal(0.0, spread, n_problems)
    m = len(theta)
    pi = np.repeat(np.arange(n_problems), m)
    mi = np.tile(np.arange(m), n_problems)
    n = np.full(n_problems * m, attempts // m)
    n[mi < attempts % m] += 1
    a = np.ones(m) if disc is None else disc
    p = 1.0 / (1.0 + np.exp(-a[mi] * (theta[mi] - b[pi])))
    k = rng.binomial(n, p)
    return b, pi, mi, k, n


THETA = np.array([-1.0, 0.0, 1.0, 2.0])


def test_1pl_recovers_difficulty_and_covers_truth() -> None:
    b, pi, mi, k, n = simulate(0, 400, 50, THETA)
    fit = fit_irt(pi, mi, k, n, 400, 4, prior_mean=0.0, prior_std=1.5)
    assert fit.converged
    assert spearman(fit.b, b) >= 0.95
    for z, nominal in ((1.0, 0.683), (1.645, 0.90), (1.96, 0.95)):
        cover = np.mean(np.abs(fit.b - b) <= z * fit.b_std)
        assert abs(cover - nominal) < 0.05, (z, cover)
    # abilities are recovered too (the prior anchors the common shift)
    assert np.max(np.abs(fit.theta - THETA)) < 0.3
    # and the [0, 1] scale is the logistic of b, order preserved
    d, d_std = fit.difficulty()
    assert spearman(d, b) == pytest.approx(spearman(fit.b, b), abs=1e-4)
    assert np.all((d > 0) & (d < 1) & (d_std > 0))


def test_2pl_recovers_discrimination() -> None:
    disc = np.array([0.6, 1.0, 1.6, 1.0])
    b, pi, mi, k, n = simulate(1, 400, 60, THETA, disc)
    fit = fit_irt(pi, mi, k, n, 400, 4, prior_mean=0.0, prior_std=1.5, two_pl=True)
    assert spearman(fit.b, b) >= 0.95
    assert np.all(np.diff(fit.a[[0, 1, 2]]) > 0)  # ordering of the discriminations
    assert np.exp(np.mean(np.log(fit.a))) == pytest.approx(1.0)
    cover = np.mean(np.abs(fit.b - b) <= 1.645 * fit.b_std)
    assert 0.8 <= cover <= 0.97


def test_prior_dominates_problems_with_few_attempts() -> None:
    b, pi, mi, k, n = simulate(2, 200, 40, THETA)
    # problem 0 gets no attempts, problem 1 one attempt
    keep = (pi != 0) & ~((pi == 1) & (mi > 0))
    n = n.copy()
    n[(pi == 1) & (mi == 0)] = 1
    k = np.minimum(k, n)
    mean = np.zeros(200)
    mean[0], mean[1] = 2.5, -2.0
    fit = fit_irt(pi[keep], mi[keep], k[keep], n[keep], 200, 4, prior_mean=mean, prior_std=0.7)
    assert fit.b[0] == pytest.approx(2.5, abs=1e-3)
    assert fit.b_std[0] == pytest.approx(0.7, abs=0.02)
    assert abs(fit.b[1] - (-2.0)) < 0.8
    assert fit.b_std[1] < 0.7
    # problems with many attempts are far tighter than the prior
    assert np.median(fit.b_std[2:]) < 0.45


def test_scale_maps_round_trip() -> None:
    d = np.array([0.05, 0.3, 0.5, 0.9])
    b, sb = unit_to_logit(d, np.full(4, 0.05))
    d2, s2 = logit_to_unit(b, sb)
    assert np.allclose(d2, d) and np.allclose(s2, 0.05)


def test_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        fit_irt(np.array([0]), np.array([0]), np.array([3]), np.array([2]), 1, 1)


def test_2pl_with_too_few_attempts_falls_back_to_1pl() -> None:
    # 10 attempts over 4 models: 2-3 per pair, where a 2PL fit degenerates
    b, pi, mi, k, n = simulate(5, 300, 10, THETA)
    fit = fit_irt(pi, mi, k, n, 300, 4, prior_mean=0.0, prior_std=1.5, two_pl=True)
    assert not fit.two_pl and fit.note and "fitted 1PL" in fit.note
    assert np.allclose(fit.a, 1.0)
    cover = np.mean(np.abs(fit.b - b) <= 1.645 * fit.b_std)
    assert 0.82 <= cover <= 0.97
