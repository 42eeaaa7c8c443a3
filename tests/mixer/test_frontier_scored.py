"""FrontierSampler with a scorer: candidates scored by a signal of the policy now (no rollout), the
signal calibrated against rewards, the cost counted, bad scorers refused, and exact resume."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch

from mixer import FrontierSampler, PassRateModel

G = 8


def _policy(n: int = 1200, seed: int = 0):
    """A policy whose pass rate per problem moved away from the curated difficulty: the prior
    ranks the problems only loosely (as a build's difficulty ranks a policy that has trained)."""
    rng = np.random.default_rng(seed)
    b = rng.normal(0.0, 2.0, n)  # the curated logit difficulty
    now = -b * 0.3 + rng.normal(0.0, 2.0, n)  # the policy's pass logit now
    return rng, 1.0 / (1.0 + np.exp(b)), 1.0 / (1.0 + np.exp(-now))


def _run(s: FrontierSampler, p: np.ndarray, rng, steps: int) -> None:
    for _ in range(steps):
        rep = np.repeat(s.next_batch(), G)
        s.learn(rep, (rng.random(rep.size) < p[rep]).astype(float), weights_id=s.last_weights_id)


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    rank = lambda v: np.argsort(np.argsort(v)).astype(float)  # noqa: E731
    return float(np.corrcoef(rank(x), rank(y))[0, 1])


def _log_likelihood(p: np.ndarray, noise: float = 0.0, seed: int = 3):
    """A scorer like a reference log-likelihood: log p (flat near p = 1, unlike the pass logit),
    plus a fixed bias per problem."""
    bias = noise * np.random.default_rng(seed).standard_normal(p.size)
    return lambda idx: np.log(p[idx]) + bias[idx]


def test_an_informative_signal_makes_predictions_track_the_policy_now():
    rng, difficulty, p = _policy()
    groups = {"a": range(600), "b": range(600, 1200)}
    # with a scorer the candidates are the posterior's Thompson draws (`FrontierSampler._take`);
    # the sampler without one is compared on the same draw
    plain = FrontierSampler(groups, 32, difficulty=difficulty, seed=0, draw="thompson")
    scored = FrontierSampler(
        groups, 32, difficulty=difficulty, seed=0, scorer=_log_likelihood(p, noise=0.5)
    )
    for s in (plain, scored):
        _run(s, p, np.random.default_rng(1), 30)
    everyone = np.arange(1200)
    r_plain = _spearman(plain.predicted_pass_rate(everyone), p)
    r_scored = _spearman(scored.predicted_pass_rate(everyone), p)
    assert r_scored > 0.85 and r_scored > r_plain + 0.2, (r_plain, r_scored)
    assert scored.model.g[0] > 0  # more likely to pass where the signal is higher
    # the draws: fewer groups with zero advantage than the sampler without the signal
    z_plain = plain.ledger["zero_advantage_groups"] / plain.ledger["groups"]
    z_scored = scored.ledger["zero_advantage_groups"] / scored.ledger["groups"]
    assert z_scored < z_plain, (z_plain, z_scored)


def test_the_calibration_bends_where_a_likelihood_flattens():
    """log p is nearly flat for p in 0.9-1 while the pass logit is not: the piecewise-linear
    calibration still tells a problem at p = 0.995 from one at p = 0.5."""
    rng = np.random.default_rng(2)
    p = np.concatenate([np.full(300, 0.5), np.full(300, 0.995), rng.uniform(0.02, 0.99, 600)])
    s = FrontierSampler({"a": range(1200)}, 64, seed=0, explore=1.0, scorer=_log_likelihood(p))
    _run(s, p, rng, 40)
    pred = s.predicted_pass_rate(np.arange(1200))
    assert pred[300:600].mean() > 0.9 and abs(pred[:300].mean() - 0.5) < 0.12
    straight = PassRateModel(np.zeros(1200, int), 1, signal=True, signal_knots=())
    bent = PassRateModel(np.zeros(1200, int), 1, signal=True)
    for m in (straight, bent):
        m.observe_signal(np.arange(1200), np.log(p))
        r = np.random.default_rng(4)
        for _ in range(40):
            j = r.choice(1200, 64, replace=False)
            m.observe(j, r.binomial(G, p[j]).astype(float), np.full(64, float(G)))
    err = {
        k: np.abs(m.pass_rate(np.arange(1200)) - p).mean()
        for k, m in (("straight", straight), ("bent", bent))
    }
    assert err["bent"] < err["straight"], err


def test_a_signal_that_says_nothing_gets_a_small_slope():
    rng, difficulty, p = _policy(seed=1)
    noise = np.random.default_rng(5).standard_normal(1200)
    s = FrontierSampler(
        {"a": range(1200)}, 32, difficulty=difficulty, seed=0, scorer=lambda idx: noise[idx]
    )
    _run(s, p, rng, 30)
    assert np.abs(s.model.g).max() < 0.5, s.model.g


def test_the_ledger_counts_scored_candidates_and_a_small_source_is_scored_whole():
    _, difficulty, p = _policy(n=210)
    seen: list[np.ndarray] = []

    def scorer(idx):
        seen.append(np.asarray(idx))
        return np.log(p[idx])

    def make(explore):
        return FrontierSampler(
            {"big": range(200), "tiny": range(200, 210)},
            20,
            mixer="static",
            mixer_kwargs={"weights": [0.5, 0.5]},
            difficulty=difficulty,
            seed=0,
            scorer=scorer,
            candidates=3,
            explore=explore,
        )

    s = make(0.0)
    batch = s.next_batch()
    assert len(batch) == 20 and len(set(batch[:10])) == 10  # no repeat while the source has enough
    tiny = [i for i in batch if i >= 200]
    assert len(tiny) == 10 and sorted(tiny) == list(range(200, 210))
    assert sorted(len(x) for x in seen) == [10, 30]  # min(10, 3 x 10) and 3 x 10 candidates
    assert s.ledger["scored_prompts"] == 40 and s.ledger["rollouts"] == 0
    assert all(i in np.concatenate(seen) for i in batch)  # every drawn problem was scored
    # the uniform share is a share of the batch, drawn from the whole source and scored too
    seen.clear()
    u = make(1.0)
    assert len(u.next_batch()) == 20 and u.ledger["scored_prompts"] == 20
    half = make(0.5)
    picks = np.concatenate([half.next_batch() for _ in range(30)])
    assert len(picks) == 600 and 20 * 30 < half.ledger["scored_prompts"] < 40 * 30


def test_bad_scorers_get_one_clear_error():
    groups = {"a": range(50)}
    with pytest.raises(ValueError, match="returned 3 values for 32 problems"):
        FrontierSampler(groups, 8, scorer=lambda idx: [0.0, 1.0, 2.0]).next_batch()
    with pytest.raises(ValueError, match="infinite"):
        FrontierSampler(groups, 8, scorer=lambda idx: np.full(len(idx), -np.inf)).next_batch()
    with pytest.raises(ValueError, match="one float per problem"):
        FrontierSampler(groups, 8, scorer=lambda idx: ["x"] * len(idx)).next_batch()
    with pytest.raises(TypeError, match="callable"):
        FrontierSampler(groups, 8, scorer=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="candidates"):
        FrontierSampler(groups, 8, candidates=0.5)
    # NaN: unknown, the problem keeps its source's mean signal
    s = FrontierSampler(groups, 8, scorer=lambda idx: np.full(len(idx), np.nan))
    assert len(s.next_batch()) == 8 and s.model.sig_scale == 0.0
    # the scorer comes before the first rewards (or it would discard what was learnt)
    t = FrontierSampler(groups, 8, seed=0)
    rep = np.repeat(t.next_batch(), 2)
    t.learn(rep, np.zeros(rep.size), weights_id=t.last_weights_id)
    with pytest.raises(RuntimeError, match="before the first update"):
        t.set_scorer(lambda idx: np.zeros(len(idx)))
    t.set_scorer(None)  # stopping is always allowed


def test_resume_with_a_scorer_reproduces_draws_and_predictions_exactly():
    rng, difficulty, p = _policy(n=400, seed=2)
    groups = {"a": range(200), "b": range(200, 400)}

    def make(scorer=_log_likelihood(p, noise=0.3)):
        return FrontierSampler(
            groups,
            16,
            difficulty=difficulty,
            seed=3,
            scorer=scorer,
            score="learnability-low",
            explore=0.25,
        )

    a = make()
    _run(a, p, rng, 5)
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    state = torch.load(buf, weights_only=True)
    b = make()
    b.load_state_dict(state)
    ra, rb = np.random.default_rng(8), np.random.default_rng(8)
    for _ in range(4):
        assert a.next_batch() == b.next_batch()
        for s, g in ((a, ra), (b, rb)):
            rep = np.repeat(s.last_problems, G)
            s.learn(rep, (g.random(rep.size) < p[rep]).astype(float), weights_id=s.last_weights_id)
    np.testing.assert_array_equal(
        a.predicted_pass_rate(range(400)), b.predicted_pass_rate(range(400))
    )
    assert a.ledger == b.ledger and a.ledger["scored_prompts"] > 9 * 16
    with pytest.raises(ValueError, match="with a signal"):
        FrontierSampler(groups, 16, difficulty=difficulty, seed=3).load_state_dict(state)
    other_knots = FrontierSampler(
        groups, 16, difficulty=difficulty, seed=3, scorer=np.zeros_like,
        model={"signal_knots": (0.0,)},
    )  # fmt: skip
    with pytest.raises(ValueError, match="signal knots"):
        other_knots.load_state_dict(state)


def test_from_shards_takes_a_scorer(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "problems").mkdir()
    n = 40
    table = pa.table(
        {
            "problem_id": [f"s/{i}" for i in range(n)],
            "source": ["x", "y"] * (n // 2),
            "difficulty": np.linspace(0.05, 0.95, n),
        }
    )
    pq.write_table(table, tmp_path / "problems" / "part-0.parquet")
    s = FrontierSampler.from_shards(
        tmp_path, 8, std_column=None, scorer=lambda idx: -np.asarray(idx, float)
    )
    assert s.model.has_signal and s.model.has_prior
    assert len(s.next_batch()) == 8 and s.ledger["scored_prompts"] == 32
