"""Feedback helpers: GRPO advantages, per-source reward, pass rate and |advantage| from per-sample data."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mixer import Feedback, GradientSketch, feedback_from_rewards, grpo_advantages, per_source_mean


def test_grpo_advantages_match_a_direct_computation() -> None:
    rewards = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    groups = ["g1"] * 4 + ["g2"] * 4
    adv = grpo_advantages(rewards, groups)
    g1 = rewards[:4]
    assert np.allclose(adv[:4], (g1 - g1.mean()) / (g1.std(ddof=1) + 1e-4))
    assert np.allclose(adv[4:], 0.0)  # all-correct group carries no signal
    assert np.allclose(grpo_advantages(rewards, groups, scale=False)[:4], g1 - 0.5)


def test_feedback_from_rewards_per_source_stats() -> None:
    # source 0: a mixed group (2 of 4 pass) and a solved group; source 1: an unsolved group; source 2 absent
    rewards = [1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0]
    groups = [0] * 4 + [1] * 4 + [2] * 4
    sources = [0] * 8 + [1] * 4
    fb = feedback_from_rewards(rewards, sources, 3, group_ids=groups)
    assert fb.counts.tolist() == [2, 1, 0]
    assert np.isclose(fb.reward[0], 6 / 8) and fb.reward[1] == 0 and np.isnan(fb.reward[2])
    assert np.isclose(fb.pass_rate[0], 6 / 8) and np.isnan(fb.pass_rate[2])
    adv = grpo_advantages(rewards, groups)
    assert np.isclose(fb.adv_abs[0], np.abs(adv[:8]).mean())
    assert fb.adv_abs[1] == 0.0 and np.isnan(fb.adv_abs[2])


def test_nan_rewards_are_left_out() -> None:
    fb = feedback_from_rewards([1.0, np.nan, 0.0, 0.0], [0, 0, 1, 1], 2, count_groups=False)
    assert fb.reward[0] == 1.0 and fb.counts.tolist() == [2, 2]
    assert (
        per_source_mean([np.nan], [0], 2).tolist() == [np.nan, np.nan]
        or np.isnan(per_source_mean([np.nan], [0], 2)).all()
    )


def test_feedback_validation() -> None:
    fb = Feedback(counts=[1, 0], loss=[np.inf, 2.0], grad_sketch=[[1.0, np.nan], [0.5, 0.5]])
    assert np.isnan(fb.loss[0]) and np.isnan(fb.grad_sketch[0]).all()
    with pytest.raises(ValueError):
        Feedback(counts=[1, 0], grad_sketch=np.ones((3, 2)))
    with pytest.raises(ValueError):
        fb.get("nope")


def test_gradient_sketch_preserves_cosines_and_is_chunk_consistent() -> None:
    rng = np.random.default_rng(0)
    d = 200_000
    a = rng.standard_normal(d)
    b = a + 0.7 * rng.standard_normal(d)
    c = rng.standard_normal(d)
    sk = GradientSketch(dim=512, seed=3, chunk=4096)
    cos = lambda x, y: float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))  # noqa: E731
    pa, pb, pc = sk.project(a), sk.project(b), sk.project(c)
    assert abs(cos(pa, pb) - cos(a, b)) < 0.08
    assert abs(cos(pa, pc)) < 0.15
    parts = [torch.from_numpy(a[:1000]).float(), torch.from_numpy(a[1000:]).float()]
    assert np.allclose(sk.project(parts), pa, atol=1e-2)
    # same seed, same projection (every rank agrees), cached hashes or not; memory is bounded
    uncached = GradientSketch(dim=512, seed=3, chunk=4096, cache_coords=0)
    assert np.allclose(uncached.project(a), pa)
    assert np.allclose(uncached.project(a), pa)
    assert uncached.memory_bytes() < 1 << 20
    assert sk.memory_bytes() <= 8 * (d + 4096) + 8 * 512
    capped = GradientSketch(dim=512, seed=3, chunk=4096, cache_coords=10 * 4096)
    assert np.allclose(capped.project(a), pa) and np.allclose(capped.project(a), pa)
    assert capped.memory_bytes() <= 8 * 10 * 4096 + 8 * 512


def test_gradient_sketch_of_model_grads() -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    x = torch.randn(32, 8)
    model(x).pow(2).mean().backward()
    sk = GradientSketch(dim=64)
    flat = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
    assert np.allclose(sk.project_grads(model.parameters()), sk.project(flat), atol=1e-5)
