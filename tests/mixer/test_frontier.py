"""FrontierSampler and its model: predictions from the curated difficulty, per-problem posteriors,
draws that favour learnable problems, credit per batch, exact resume, and every bad-input edge."""

from __future__ import annotations

import collections
import io

import numpy as np
import pytest
import torch

from mixer import FrontierSampler, MixedSampler, PassRateModel
from mixer.problems import ProblemSampler

G = 8


def _population(n: int = 2000, seed: int = 0, spread: float = 2.5):
    """A fixed policy of ability 0 on problems of logit difficulty b: p = sigmoid(-b)."""
    rng = np.random.default_rng(seed)
    b = rng.normal(0.0, spread, n)
    return rng, b, 1.0 / (1.0 + np.exp(b))


def _rollouts(rng, p, idx):
    rep = np.repeat(np.asarray(idx), G)
    return rep, (rng.random(rep.size) < p[rep]).astype(float)


def _unit(b):
    return 1.0 / (1.0 + np.exp(-b))


# ---- the model ------------------------------------------------------------------------------


def test_prior_orders_predictions_and_attempts_move_them():
    m = PassRateModel(np.zeros(4, int), 1, np.array([-2.0, 0.0, 2.0, 2.0]), np.full(4, 0.3))
    p0 = m.pass_rate(np.arange(4))
    assert p0[0] > p0[1] > p0[2] == p0[3]  # harder problems, lower predicted pass rate
    m.observe(np.array([3]), np.array([8.0]), np.array([8.0]))  # the hard one was solved 8/8
    p1 = m.pass_rate(np.arange(4))
    assert p1[3] > p0[3] + 0.2 and p1[3] > p1[2] + 0.08  # its attempts lift it above its twin
    assert m.m[3] > 1.0 and m.m[2] == 0.0  # through its own posterior, not its twin's
    assert m.learnability(np.arange(4)).max() <= 0.25


def test_ability_and_slope_are_learnt_from_rollouts():
    """A policy of ability 1.5 on a calibrated scale (slope 1): the fit finds both."""
    rng = np.random.default_rng(1)
    n = 3000
    b = rng.normal(0, 2, n)
    p = _unit(1.5 - b)
    m = PassRateModel(np.zeros(n, int), 1, b, np.full(n, 0.3), half_life=50)
    for _ in range(40):
        j = rng.choice(n, 64, replace=False)
        k = rng.binomial(G, p[j])
        m.observe(j, k.astype(float), np.full(64, float(G)))
    assert m.c[0] == pytest.approx(1.5, abs=0.3)
    assert m.a == pytest.approx(1.0, abs=0.2)
    unseen = np.flatnonzero(m.last == 0)
    err = np.abs(m.pass_rate(unseen) - p[unseen])
    assert err.mean() < 0.1  # problems never attempted are predicted from their difficulty alone


def test_a_prior_that_predicts_nothing_loses_its_slope():
    rng = np.random.default_rng(2)
    n = 2000
    b_true = rng.normal(0, 2, n)
    junk = rng.normal(0, 2, n)  # a "difficulty" unrelated to the policy's successes
    m = PassRateModel(np.zeros(n, int), 1, junk, np.full(n, 0.3), half_life=50)
    for _ in range(40):
        j = rng.choice(n, 64, replace=False)
        m.observe(j, rng.binomial(G, _unit(-b_true[j])).astype(float), np.full(64, float(G)))
    assert abs(m.a) < 0.25


def test_missing_difficulties_fall_back_to_the_source_mean():
    src = np.array([0, 0, 0, 1, 1, 2])
    b = np.array([-1.0, 1.0, np.nan, 3.0, np.nan, np.nan])
    m = PassRateModel(src, 3, b, np.array([0.3, 0.3, np.nan, 0.5, np.nan, np.nan]))
    assert m.b[2] == pytest.approx(0.0)  # source 0's mean
    assert m.b[4] == pytest.approx(3.0)  # source 1's mean
    assert m.b[5] == pytest.approx(1.0)  # source 2 has none: the mean of all known
    assert m.prior_var[2] > m.prior_var[0]  # the source's spread is its uncertainty
    assert np.isfinite(m.pass_rate(np.arange(6))).all()
    none = PassRateModel(src, 3)  # no prior at all
    assert not none.has_prior and np.allclose(none.pass_rate(np.arange(6)), 0.5)


# ---- drawing ---------------------------------------------------------------------------------


def test_draws_favour_learnable_problems_and_cut_zero_advantage_groups():
    """Same fixed policy, same problems: the frontier draws fewer all-equal groups than uniform,
    more so with a noisy but informative prior than without one."""
    n = 2000
    zero = {}
    for name in ("uniform", "noprior", "prior"):
        rng, b, p = _population(n, seed=3)
        groups = {"a": np.arange(n // 2), "b": np.arange(n // 2, n)}
        noisy = _unit(b + rng.normal(0, 1.0, n))  # a curated difficulty with logit noise 1
        if name == "uniform":
            s = ProblemSampler(groups, 64, seed=0)
        else:
            d = noisy if name == "prior" else None
            s = FrontierSampler(groups, 64, difficulty=d, difficulty_std=None, seed=0)
        for _ in range(120):
            rep, r = _rollouts(rng, p, s.next_batch())
            s.learn(rep, r, weights_id=s.last_weights_id)
        zero[name] = s.ledger["zero_advantage_groups"] / s.ledger["groups"]
    assert zero["prior"] < zero["noprior"] < zero["uniform"]
    assert zero["prior"] < 0.8 * zero["uniform"]


def test_the_greedy_draw_takes_the_problems_the_model_rates_best():
    """`draw="greedy"` (issue 52's sixth round): without the uniform share a source's draws are
    its problems of highest expected score, before and after rollouts; the Thompson draw takes
    others now and then."""
    rng, b, p = _population(300, seed=3)
    kw = {"difficulty": _unit(b), "mixer": "uniform", "explore": 0.0}
    s = FrontierSampler({"a": range(300)}, 16, seed=0, draw="greedy", **kw)
    t = FrontierSampler({"a": range(300)}, 16, seed=0, draw="thompson", **kw)
    for _ in range(3):
        rows = s.next_batch()
        best = np.argsort(-s.scores(np.arange(300)))[:16]
        assert set(rows) == set(best.tolist())
        s.learn(*_rollouts(rng, p, rows), weights_id=s.last_weights_id)
    assert set(t.next_batch()) != set(np.argsort(-t.scores(np.arange(300)))[:16].tolist())


def test_the_default_draw_spreads_training_over_the_problems_it_rates_alike():
    """The default draw is the posterior's Thompson draw: on a fixed policy it trains on many
    more of the learnable problems than the greedy draw, which keeps drawing the few it has
    found near p = 1/2 (in B3 v2's real GRPO loop greedy put 54-61% of the draws on a tenth
    of the problems against 39-42%, and ended 0.020 (SE 0.004) lower in held-out pass@1,
    benchmarks/pages/b3v2.md section 22)."""
    rng, b, p = _population(300, seed=3)
    kw = {"difficulty": _unit(b), "mixer": "uniform"}
    distinct = {}
    for draw in ("default", "greedy"):
        s = FrontierSampler(
            {"a": range(300)}, 16, seed=0, **kw, **({} if draw == "default" else {"draw": draw})
        )
        seen: set[int] = set()
        for _ in range(30):
            rows = s.next_batch()
            seen |= set(rows)
            s.learn(*_rollouts(rng, p, rows), weights_id=s.last_weights_id)
        distinct[draw] = len(seen)
    assert FrontierSampler({"a": range(10)}, 2).settings.draw == "thompson"
    assert distinct["default"] > 1.5 * distinct["greedy"], distinct


def test_batches_have_no_repeats_while_the_source_has_problems():
    s = FrontierSampler({"a": range(10), "b": range(10, 100)}, 40, seed=1)
    for _ in range(5):
        idx = s.next_batch()
        assert len(idx) == 40
        for src in (0, 1):
            mine = [i for i in idx if (i >= 10) == bool(src)]
            assert len(mine) == len(set(mine)) or src == 0 and len(mine) > 10


def test_a_source_with_one_problem_is_drawn_again_and_again():
    s = FrontierSampler(
        {"one": [0], "many": range(1, 50)},
        16,
        mixer="static",
        mixer_kwargs={"weights": [0.5, 0.5], "floor": 0.0},
        seed=0,
    )
    rng = np.random.default_rng(0)
    for _ in range(10):
        idx = np.asarray(s.next_batch())
        assert len(idx) == 16 and (idx == 0).sum() >= 2  # repeats of the lone problem
        rep = np.repeat(idx, G)
        out = s.learn(
            rep,
            (rng.random(rep.size) < 0.5).astype(float),
            weights_id=s.last_weights_id,
            group_size=G,
        )
        assert out.n_groups == 16  # each draw of the lone problem is a group of its own
    assert 0.2 < s.predicted_pass_rate([0])[0] < 0.8


def test_all_problems_solved_keeps_drawing_full_batches():
    s = FrontierSampler(
        {"a": range(30), "b": range(30, 60)}, 20, difficulty=np.linspace(0.1, 0.9, 60), seed=0
    )
    for _ in range(30):
        idx = s.next_batch()
        assert len(idx) == 20
        rep = np.repeat(idx, G)
        out = s.learn(rep, np.ones(rep.size), weights_id=s.last_weights_id)
        assert out.zero_advantage.all() and out.keep.all()
    pr = s.predicted_pass_rate(np.arange(60))
    assert np.isfinite(pr).all() and pr.min() > 0.8
    assert np.isfinite(s.scores(np.arange(60))).all()
    assert s.ledger["zero_advantage_groups"] == s.ledger["groups"]


def test_group_size_one_learns_but_every_group_has_zero_advantage():
    s = FrontierSampler({"a": range(20)}, 20, seed=0)
    for _ in range(20):
        idx = np.asarray(s.next_batch())
        out = s.learn(idx, (idx < 10).astype(float), weights_id=s.last_weights_id)
        assert out.zero_advantage.all()
    pr = s.predicted_pass_rate(np.arange(20))
    assert pr[:10].mean() > 0.6 > 0.4 > pr[10:].mean()


def test_partial_credit_and_other_reward_scales():
    s = FrontierSampler({"a": range(4)}, 4, seed=0, reward_range=(-1.0, 1.0))
    idx = np.repeat(np.arange(4), 4)
    r = np.tile([1.0, -1.0, 0.0, 0.5], 4)  # a speed-like reward on [-1, 1]
    r[idx == 3] = 0.0  # all equal: zero advantage, even if not 0/1
    s.next_batch()
    out = s.learn(idx, r, weights_id=s.last_weights_id)
    assert out.mean[:3] == pytest.approx([0.5625] * 3)  # (1 + 0 + 0.5 + 0.75) / 4 on [0, 1]
    assert list(out.zero_advantage) == [False, False, False, True]
    with pytest.raises(ValueError, match="reward_range"):
        s.observe([0, 0], [0.0, 2.0])
    nan = s.observe([1, 1, 1], [1.0, np.nan, 1.0])  # a sandbox fault counts nowhere
    assert nan.attempts[0] == 2 and nan.zero_advantage[0]


def test_bad_inputs_get_one_clear_error():
    groups = {"a": range(5)}
    with pytest.raises(ValueError, match="\\[0, 1\\]"):
        FrontierSampler(groups, 2, difficulty=[0.1, 0.2, 1.5, 0.3, 0.4])
    with pytest.raises(ValueError, match="every global index"):
        FrontierSampler(groups, 2, difficulty=[0.1, 0.2])
    with pytest.raises(ValueError, match="score"):
        FrontierSampler(groups, 2, score="greedy")
    with pytest.raises(ValueError, match="recycle"):
        FrontierSampler(groups, 2, exhaust="stop")
    s = FrontierSampler(groups, 2)
    with pytest.raises(ValueError, match="one of each"):
        s.observe([0, 1], [1.0])
    with pytest.raises(ValueError, match="no source"):
        s.observe([7], [1.0])
    with pytest.raises(ValueError, match="integer"):
        s.observe([0.5], [1.0])
    logit = FrontierSampler(groups, 2, difficulty=[-2, -1, 0, 1, 2], difficulty_scale="logit")
    assert (np.diff(logit.predicted_pass_rate(range(5))) < 0).all()
    # None and NaN: unknown
    ok = FrontierSampler(groups, 2, difficulty=[np.nan, 0.2, None, 0.3, 0.4])
    assert np.isfinite(ok.predicted_pass_rate(range(5))).all()


# ---- credit, resume, plugging in -------------------------------------------------------------


@pytest.mark.parametrize("depth", [0, 2])
def test_prefetched_batches_update_the_right_problems_and_weights(depth: int):
    rng, b, p = _population(400, seed=4)
    s = FrontierSampler(
        {"a": range(200), "b": range(200, 400)},
        16,
        mixer="advantage-bandit",
        difficulty=_unit(b),
        seed=0,
        num_steps=25,
    )
    queue: collections.deque = collections.deque()
    drawn = {}
    for batch in s:
        drawn[s.last_weights_id] = (list(batch), s.mixer.weights().copy())
        queue.append((batch, s.last_weights_id))
        if len(queue) > depth:
            batch, wid = queue.popleft()
            before = s.model.t
            rep, r = _rollouts(rng, p, batch)
            s.learn(rep, r, weights_id=wid)
            assert set(np.flatnonzero(s.model.last == before + 1)) == set(s._slot[batch])
    for rec in s.mixer.history:
        np.testing.assert_array_equal(rec["weights"], drawn[rec["weights_id"]][1])
    late = s.next_batch()
    stray = next(x for x in range(400) if x not in late)
    with pytest.raises(ValueError, match="not drawn in the batch"):
        s.observe([late[0], stray], [1.0, 0.0], weights_id=s.last_weights_id)


def test_resume_reproduces_draws_and_predictions_exactly():
    rng, b, p = _population(300, seed=5)

    def make():
        return FrontierSampler(
            {"a": range(150), "b": range(150, 300)},
            24,
            mixer="acodm",
            mixer_kwargs={"warmup": 2},
            difficulty=_unit(b),
            seed=7,
        )

    def step(s, rng):
        rep, r = _rollouts(rng, p, s.next_batch())
        s.learn(rep, r, weights_id=s.last_weights_id)

    a = make()
    for _ in range(6):
        step(a, rng)
    pending = a.next_batch()  # drawn, not yet rewarded: its id survives the checkpoint
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    b2 = make()
    b2.load_state_dict(torch.load(buf, weights_only=True))
    for s in (a, b2):
        rep, r = _rollouts(np.random.default_rng(9), p, pending)
        s.learn(rep, r, weights_id=s.last_weights_id)
    ra, rb = np.random.default_rng(11), np.random.default_rng(11)
    for _ in range(5):
        assert a.next_batch() == b2.next_batch()
        for s, g in ((a, ra), (b2, rb)):
            rep, r = _rollouts(g, p, s.last_problems)
            s.learn(rep, r, weights_id=s.last_weights_id)
    np.testing.assert_array_equal(
        a.predicted_pass_rate(range(300)), b2.predicted_pass_rate(range(300))
    )
    assert a.ledger == b2.ledger
    with pytest.raises(ValueError, match="plain MixedSampler"):
        make().load_state_dict(
            MixedSampler({"a": range(150), "b": range(150, 300)}, 24).state_dict()
        )


def test_usable_wherever_a_mixed_sampler_is():
    from torch.utils.data import DataLoader

    from mixer.adapters.torch import MixerRepeatSampler

    data = list(range(100, 160))
    s = FrontierSampler.from_datasets({"x": data[:30], "y": data[30:]}, 6, seed=0, num_steps=3)
    assert isinstance(s, MixedSampler)
    batches = list(DataLoader(s.dataset, batch_sampler=s))
    assert len(batches) == 3 and all(len(b) == 6 for b in batches)
    trl = MixerRepeatSampler(s, mini_repeat_count=G, num_batches=2)
    stream = list(trl)
    assert len(stream) == 2 * 6 * G and stream[:G] == [stream[0]] * G


def _shards(tmp_path, **cols):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "problems").mkdir()
    base = {"problem_id": [f"s/{i}" for i in range(6)], "source": ["x", "x", "x", "y", "y", "y"]}
    pq.write_table(pa.table(base | cols), tmp_path / "problems" / "part-0.parquet")
    return tmp_path


def test_from_shards_reads_the_prior_from_named_columns(tmp_path):
    from filters.contracts import UserError

    d = [0.1, None, 0.9, 0.5, 0.5, None]
    out = _shards(
        tmp_path, difficulty=d, difficulty_std=[0.05] * 6, mine=[0.9, 0.9, 0.1, 0.5, 0.5, 0.5]
    )
    s = FrontierSampler.from_shards(out, 4)
    assert s.names == ["x", "y"] and s.model.has_prior
    assert s.model.b[1] == pytest.approx(0.0, abs=1e-9)  # null: source x's mean logit (-2.2, 2.2)
    p = s.predicted_pass_rate(range(6))
    assert p[0] > p[2]  # easier problem, higher predicted pass rate
    t = FrontierSampler.from_shards(out, 4, difficulty_column="mine", std_column=None)
    assert t.predicted_pass_rate([0])[0] < t.predicted_pass_rate([2])[0]
    assert not FrontierSampler.from_shards(out, 4, difficulty_column=None).model.has_prior
    with pytest.raises(UserError, match="no column 'rating'"):
        FrontierSampler.from_shards(out, 4, difficulty_column="rating")


def test_from_shards_refuses_values_off_the_unit_scale(tmp_path):
    from filters.contracts import UserError

    out = _shards(tmp_path, difficulty=[1200.0, 1500, 1800, 2100, 900, 1000])
    with pytest.raises(UserError, match="\\[0, 1\\]"):
        FrontierSampler.from_shards(out, 4, std_column=None)
