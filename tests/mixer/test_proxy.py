"""ProxyACODM: learns a mixing policy from whole-run outcomes over proxy runs, then transfers it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mixer import Feedback, ProxyACODM, make_mixer

N = 4
STEPS = 40


def toy_run(
    mixer: ProxyACODM, rng: np.random.Generator, value, noise: float = 0.02, offset: float = 0.0
) -> float:
    """A training run whose held-out objective drops each step by `value(weights, step)` plus
    noise (and `offset` / STEPS: luck the run shares with others of the same seed); reports the
    objective every step. Returns the total drop (the run's outcome)."""
    loss = 1.0
    mixer.start_run(eval_loss=loss)
    for step in range(STEPS):
        w = mixer.weights()
        loss -= value(w, step) + offset / STEPS + rng.normal(0.0, noise)
        counts = np.round(w * 64)
        mixer.update(Feedback(counts=counts, loss=np.full(len(w), loss), eval_loss=loss))
    return 1.0 - loss


# diminishing returns per source: the best mixture is interior, near (0.1, 0.45, 0.35, 0.1)
B = np.array([0.2, 1.0, 0.8, 0.2])
K = np.array([1.0, 2.0, 2.0, 1.0])


def concave(w: np.ndarray, step: int) -> float:
    return float((B * w - 0.5 * K * w * w).sum()) / STEPS


def test_learns_the_best_fixed_mixture_from_run_outcomes() -> None:
    rng = np.random.default_rng(0)
    m = ProxyACODM(N, horizon=STEPS, seed=0, segments=1)  # one segment: a fixed mixture per run
    for _ in range(60):
        toy_run(m, rng, concave)
        m.end_run()
    assert m.runs == 60 and len(m.ex_g) == 60
    m.deploy()
    greedy = m.weights()
    # the best mixture of this process under the mixer's floor
    best = np.array([0.1, 0.45, 0.35, 0.1])
    assert np.abs(greedy - best).sum() < 0.3, greedy
    assert concave(greedy, 0) > concave(np.full(N, 1 / N), 0)


def test_paired_runs_cancel_the_luck_they_share() -> None:
    """Runs differ by a seed's luck (sd 0.3) far more than by their mixtures (0.1 between the best
    and uniform); pairs of runs that share the luck let the critic see the mixtures' effect."""

    def train(paired: bool) -> np.ndarray:
        rng = np.random.default_rng(5)
        m = ProxyACODM(N, horizon=STEPS, seed=5, segments=1)
        for pair in range(30):
            luck = rng.normal(0.0, 0.3)
            exs = []
            for _ in range(2):
                toy_run(m, rng, concave, noise=0.005, offset=luck)
                exs.append(m.end_run(learn=False))
            m.fit_runs(exs, groups=[pair, pair] if paired else None)
        m.deploy()
        return m.weights()

    best = np.array([0.1, 0.45, 0.35, 0.1])
    err_paired = np.abs(train(True) - best).sum()
    err_plain = np.abs(train(False) - best).sum()
    assert err_paired < 0.3 and err_plain > 2 * err_paired, (err_paired, err_plain)


def test_credits_a_mixture_with_what_follows_not_its_immediate_effect() -> None:
    """Source 0 pays nothing at once but everything later (it is a skill the rest builds on);
    source 1 pays a little at once. With two segments, the first should invest in source 0."""
    rng = np.random.default_rng(1)
    m = ProxyACODM(2, horizon=STEPS, seed=1, segments=2)
    invested = {"w0": 0.0}

    def delayed(w: np.ndarray, step: int) -> float:
        if step < STEPS // 2:
            invested["w0"] += w[0] / (STEPS // 2)
            return 0.1 * w[1] / STEPS
        return (2.0 * invested["w0"] + 0.1 * w[1]) / STEPS

    def run() -> float:
        invested["w0"] = 0.0
        return toy_run(m, rng, delayed, noise=0.005)

    for _ in range(60):
        run()
        ex = m.end_run()
    assert ex["s"].shape[0] == 2  # one example per segment, each with its return to the run's end
    m.deploy()
    m.start_run()
    first = m.weights()
    assert first[0] > 0.6, first  # invests in the source whose payoff comes later


def test_exploration_is_held_for_a_segment_and_gone_when_deployed() -> None:
    rng = np.random.default_rng(2)
    m = ProxyACODM(N, horizon=STEPS, seed=2, segments=4)
    m.start_run(eval_loss=1.0)
    seen = []
    for step in range(STEPS):
        seen.append(m.weights())
        m.update(Feedback(counts=[8] * N, eval_loss=1.0 - 0.01 * step))
    W = np.array(seen)
    for k in range(4):  # constant within a segment, different between segments
        assert np.allclose(W[10 * k : 10 * k + 10], W[10 * k])
    assert not np.allclose(W[0], W[10])
    ex = m.end_run()
    assert ex["a"].shape == (4, N) and np.allclose(ex["a"], W[::10])
    m.deploy()
    m.start_run()
    a, b = m.weights(), ProxyACODM(N, horizon=STEPS, seed=2)
    assert np.allclose(a, m.actor_weights(m._seg_s[0]) * (1 - N * m.floor) + m.floor)
    del b, rng


def test_a_confident_actor_still_explores() -> None:
    """Noise on large logits changes nothing; random mixtures keep the critic's data spread."""

    def first_weights(explore_random: float) -> np.ndarray:
        m = ProxyACODM(N, horizon=STEPS, seed=6, explore_random=explore_random)
        m.actor["bias"][:] = [20.0, 0.0, 0.0, 0.0]  # an actor sure of source 0
        out = []
        for _ in range(20):
            m.start_run(eval_loss=1.0)
            out.append(m.weights())
        return np.array(out)

    assert (first_weights(0.0)[:, 0] > 0.9).all()
    assert (first_weights(0.25)[:, 0] < 0.5).sum() >= 2


def test_a_run_without_the_heldout_objective_is_an_error() -> None:
    m = ProxyACODM(N, horizon=STEPS, seed=0)
    m.start_run()
    for _ in range(STEPS):
        m.update(Feedback(counts=[8] * N))
    with pytest.raises(ValueError, match="eval_loss"):
        m.end_run()


def test_dev_loss_counts_as_the_objective_when_eval_loss_is_absent() -> None:
    m = ProxyACODM(2, horizon=4, seed=0, segments=1)
    m.start_run()
    for step in range(4):
        m.update(Feedback(counts=[8, 8], dev_loss=[1.0 - 0.1 * step, 2.0 - 0.1 * step]))
    ex = m.end_run(learn=False)
    assert ex["g"] == pytest.approx([0.3])  # mean dev loss from 1.5 (first report) to 1.2


def test_state_dict_round_trip_continues_exactly() -> None:
    rng = np.random.default_rng(3)
    m = ProxyACODM(N, horizon=STEPS, seed=3, segments=2)
    for _ in range(3):
        toy_run(m, rng, concave)
        m.end_run()
    m.start_run(eval_loss=1.0)
    for _ in range(5):
        m.update(Feedback(counts=[8] * N, eval_loss=0.9))
    twin = make_mixer("acodm-proxy", N, horizon=STEPS, seed=99, segments=2)
    twin.load_state_dict(m.state_dict())
    for mm in (m, twin):
        for step in range(5, STEPS):
            mm.update(Feedback(counts=[8] * N, eval_loss=0.9 - 0.001 * step))
        mm.end_run()
    assert np.allclose(m.actor_flat, twin.actor_flat)
    assert np.allclose(m.kappa_raw, twin.kappa_raw)
    assert np.allclose(m.weights(), twin.weights())


def test_parallel_runs_learn_like_sequential_calls() -> None:
    """end_run(learn=False) on copies plus learn(examples) is how parallel proxy runs train."""
    rng = np.random.default_rng(4)
    m = ProxyACODM(N, horizon=STEPS, seed=4, segments=1)
    toy_run(m, rng, concave)
    ex = m.end_run(learn=False)
    a = ProxyACODM(N, horizon=STEPS, seed=4, segments=1)
    b = ProxyACODM(N, horizon=STEPS, seed=4, segments=1)
    a.fit_runs([ex, ex])
    b.fit_runs([ex])  # one example is too few to fit on
    assert b.updates == 0
    b.fit_runs([ex])
    assert a.runs == b.runs == 2 and len(a.ex_g) == len(b.ex_g) == 2
    assert a.updates == b.updates == a.fit_steps
    assert np.allclose(a.actor_flat, b.actor_flat)
    with pytest.raises(ValueError, match="start_run"):
        m.end_run()  # that run has ended
    with pytest.raises(ValueError, match="start_run"):
        m.update(Feedback(counts=[8] * N))


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="segments"):
        ProxyACODM(N, horizon=10, segments=11)
    with pytest.raises(ValueError, match="explore"):
        ProxyACODM(N, explore=-1.0)
    m = ProxyACODM(N, horizon=STEPS)
    ex = {"s": np.zeros((1, N, 10)), "a": np.full((1, N), 1 / N), "g": np.zeros(1)}
    with pytest.raises(ValueError, match="groups for"):
        m.fit_runs([ex, ex], groups=[0])
    with pytest.raises(ValueError, match=">= 0"):
        m.fit_runs([ex], groups=[-1])


def test_a_saved_policy_loads_by_keyword_for_adapters(tmp_path) -> None:
    import json

    import torch

    from filters.contracts import UserError
    from mixer import MixedSampler

    rng = np.random.default_rng(7)
    m = ProxyACODM(N, horizon=STEPS, seed=7, segments=1)
    for _ in range(5):
        toy_run(m, rng, concave)
        m.end_run()
    m.deploy()
    m.start_run()
    torch.save(m.state_dict(), tmp_path / "p.pt")
    (tmp_path / "p.json").write_text(json.dumps(m.state_dict()))
    for name in ("p.pt", "p.json"):
        sampler = MixedSampler(
            {str(i): np.arange(i * 10, i * 10 + 10) for i in range(N)},
            8,
            mixer=make_mixer(
                "acodm-proxy", N, horizon=STEPS, segments=1, policy_file=tmp_path / name
            ),
        )
        assert sampler.mixer.deployed and sampler.mixer.step == 0
        assert np.allclose(sampler.mixer.weights(), m.weights())
    with pytest.raises(UserError, match="no ProxyACODM policy file"):
        ProxyACODM(N, policy_file=tmp_path / "missing.pt")


def test_a_policy_saved_with_acodms_online_parts_still_loads() -> None:
    """ProxyACODM builds no replay buffer, target networks or warm-up ODM; a policy saved when it
    still did (benchmarks/results, keys it ignores now) loads and gives its saved weights."""
    from pathlib import Path

    from mixer.policies.base import from_state

    path = Path(__file__).parents[2] / "benchmarks" / "results" / "mix_proxy_state_120.json"
    saved = from_state(json.loads(path.read_text()))
    assert {"buf", "odm", "actor_t", "critic_t", "sigma"} <= set(saved["policy_state"])
    m = ProxyACODM(saved["n_sources"], horizon=500, policy_file=path)
    assert not any(hasattr(m, a) for a in ("buf_s", "odm", "actor_t_flat", "critic_t", "sigma"))
    assert m.deployed and m.step == 0
    assert np.array_equal(m.actor_flat, saved["policy_state"]["actor"])
    assert np.array_equal(m.critic_flat, saved["policy_state"]["critic"])
    assert np.array_equal(m.kappa_raw, saved["policy_state"]["proxy"]["kappa_raw"])
    assert np.allclose(m.weights(), m.actor_weights() * (1 - m.floor * m.n_sources) + m.floor)
    assert not {"buf", "odm", "actor_t", "critic_t", "sigma"} & set(m.state_dict()["policy_state"])
