"""ACODM's research variants archived out of mixer/ with issue 52
(benchmarks/mixing/mixbench/paper_acodm.py): the AC-ODM paper's reward, state, per-source critic
and cloned warm-up, and the softmax allocation, which mix_rl.py, mix_lm.py and mixer_overhead.py
still run."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from mixer import ACODM, Feedback
from tests.mixer.streams import run_stream

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "mixing"))

from mixbench.common import MixerSpec, build_mixer  # noqa: E402
from mixbench.paper_acodm import PaperACODM, interference_scores  # noqa: E402

N = 6
FAV = 2


def test_with_no_variant_chosen_it_is_acodm_and_mixbench_builds_it_for_archived_keywords() -> None:
    a, b = PaperACODM(N, seed=0, warmup=10), ACODM(N, seed=0, warmup=10)
    assert np.array_equal(run_stream(a, "adv_abs", FAV, 60), run_stream(b, "adv_abs", FAV, 60))
    names = ["a", "b", "c"]
    spec = MixerSpec("acodm-paper", "acodm", **PaperACODM.paper_recipe())
    paper = build_mixer(spec, 3, names, seed=0, horizon=40, n_norms=2)
    assert type(paper) is PaperACODM and paper.n_norms == 2
    # the trainers pass every ACODM arm the norms' count; only the paper's state reads it
    plain = MixerSpec("acodm-target", "acodm", reward="target")
    assert type(build_mixer(plain, 3, names, seed=0, horizon=40, n_norms=2)) is ACODM
    proxy = MixerSpec("acodm-proxy", "acodm-proxy")
    assert build_mixer(proxy, 3, names, seed=0, horizon=40, n_norms=2).horizon == 40
    with pytest.raises(ValueError, match="allocation"):
        PaperACODM(N, allocation="greedy")


def test_softmax_allocation_concentrates_where_proportional_shares() -> None:
    """Two useful sources (value 2 and 1) and four useless ones, every step the same."""
    rng = np.random.default_rng(0)
    value = np.array([2.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    late = {}
    for alloc in ("proportional", "softmax"):
        m = PaperACODM(N, reward="heldout", allocation=alloc, seed=0, warmup=5)
        dev = np.full(N, 10.0)
        W = []
        for _ in range(200):
            W.append(m.weights())
            dev = dev - 0.01 * value * (1 + 0.2 * rng.standard_normal(N))
            m.update(Feedback(counts=np.full(N, 8), dev_loss=dev))
        late[alloc] = np.array(W[-50:]).mean(axis=0)
    p, s = late["proportional"], late["softmax"]
    assert s[0] > 0.6 and s[1] < p[1], s  # softmax piles onto the best one


def test_a_saved_policy_loads_only_into_the_same_state_kind() -> None:
    m = ACODM(N, seed=0, warmup=5)
    run_stream(m, "adv_abs", FAV, steps=20)
    with pytest.raises(ValueError, match="state="):
        PaperACODM(N, state="paper").load_state_dict(m.state_dict())
    p = PaperACODM(4, seed=0, horizon=40, n_norms=2, **PaperACODM.paper_recipe())
    for t in range(30):
        p.update(Feedback(counts=[4, 4, 4, 4], loss=[2.0, 2.5, 3.0, 3.5],
                          grad_sketch=np.eye(4, 8) + 0.1 * t,
                          extra={"param_norms": [1.0 + 0.01 * t, 2.0]}))  # fmt: skip
    again = PaperACODM(4, seed=0, horizon=40, n_norms=2, **PaperACODM.paper_recipe())
    again.load_state_dict(p.state_dict())
    np.testing.assert_array_equal(again.state, p.state)
    np.testing.assert_array_equal(again.p_norms, p.p_norms)


def test_interference_is_the_papers_reward() -> None:
    """sum_{j != i} <g_i, g_j> / mean |g|, z-scored and clipped at 3; undrawn sources are NaN."""
    g = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0], [np.nan, np.nan]])
    s = interference_scores(g)
    raw = np.array([1.0 + 0.0, 1.0 + 2.0, 0.0 + 2.0]) / np.mean([1.0, np.sqrt(2), 2.0])
    want = (raw - raw.mean()) / raw.std(ddof=1)
    np.testing.assert_allclose(s[:3], want)
    assert np.isnan(s[3])
    assert np.isnan(interference_scores(g[[0, 3]])).all()  # one drawn source: nothing to compare


def test_interference_reward_moves_toward_the_source_the_others_agree_with() -> None:
    m = PaperACODM(N, reward="interference", seed=0, warmup=10)
    W = run_stream(m, "alignment", FAV, steps=150)
    late = W[-20:].mean(axis=0)
    assert late.argmax() == FAV, late


def _paper_fb(loss, counts, norms) -> Feedback:
    return Feedback(counts=counts, loss=loss, extra={"param_norms": norms})


def test_paper_state_does_not_depend_on_the_models_scale() -> None:
    """Each group is z-scored on its own, so a larger model's losses and norms give the same state
    (what lets a policy learnt on a small proxy drive a larger target)."""
    small, large = PaperACODM(3, state="paper", n_norms=2), PaperACODM(3, state="paper", n_norms=2)
    for t in range(3):
        loss = np.array([3.0, 2.0, 2.5]) - 0.1 * t * np.array([1, 2, 3])
        norms = np.array([1.0, 2.0]) + 0.01 * t * np.array([1.0, 3.0])
        small.update(_paper_fb(loss, [4, 2, 6], norms))
        large.update(_paper_fb(0.5 * loss, [40, 20, 60], 30.0 * norms))
    assert small.state.shape == (3, 3 + 2 * 2 + 1)
    np.testing.assert_allclose(small.state, large.state, atol=1e-6)
    with pytest.raises(ValueError, match="param_norms"):
        small.update(Feedback(counts=[1, 1, 1], loss=[1.0, 1.0, 1.0]))


def test_cloned_warmup_hands_over_where_the_odm_was() -> None:
    """The paper's warm-up: the actor is regressed onto the warm-up ODM's weights, so the first
    actor step continues from them (without cloning it starts from its random initialisation)."""
    rng = np.random.default_rng(0)
    fbs = [
        Feedback(counts=np.full(4, 8), loss=[3.0, 2.0, 1.0, 0.5] + 0.05 * rng.standard_normal(4))
        for _ in range(200)
    ]
    gaps = {}
    for clone in (True, False):
        m = PaperACODM(4, reward="progress", warmup=200, clone_warmup=clone, seed=0, floor=0.0)
        for fb in fbs:
            m.update(fb)
        gaps[clone] = np.abs(m.actor_weights() - m.odm.weights()).sum()
    assert gaps[True] < 0.1 < gaps[False], gaps


def test_paper_recipe_runs_and_its_critic_is_per_source() -> None:
    rng = np.random.default_rng(0)
    m = PaperACODM(4, seed=0, horizon=60, n_norms=2, **PaperACODM.paper_recipe())
    assert m.critic["W"].shape[0] == m.n_features + 1  # the source's own weight is an input
    for t in range(60):
        g = rng.standard_normal((4, 8)) + np.array([1.0, 1.0, 0.0, -1.0])[:, None]
        m.update(
            Feedback(
                counts=[4, 4, 4, 4],
                loss=[2.0, 2.5, 3.0, 3.5],
                grad_sketch=g,
                extra={"param_norms": [1.0 + 0.01 * t, 2.0]},
            )
        )
    assert m.updates > 0 and np.isfinite(m.weights()).all()
    assert np.isfinite(m.critic_value(np.full(4, 0.25)))


def test_paper_critic_action_gradient_matches_finite_differences() -> None:
    m = PaperACODM(4, seed=3, n_norms=2, **PaperACODM.paper_recipe())
    rng = np.random.default_rng(0)
    m.critic_flat[:] = rng.normal(0, 0.5, m.critic_flat.shape)
    S = rng.normal(0, 1, (2, 4, m.n_features))
    A = rng.dirichlet(np.ones(4), size=2)
    _, _, h = m._critic_fwd(m.critic, m._critic_in(S, A))
    got = m._dq_da(h, A.shape)
    eps = 1e-6
    for b in range(2):
        for i in range(4):
            up, dn = A.copy(), A.copy()
            up[b, i] += eps
            dn[b, i] -= eps
            qu = m._critic_fwd(m.critic, m._critic_in(S, up))[0][b, i]
            qd = m._critic_fwd(m.critic, m._critic_in(S, dn))[0][b, i]
            assert abs((qu - qd) / (2 * eps) - got[b, i]) < 1e-5
