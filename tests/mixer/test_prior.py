"""Issue 40: every sampler and source mixer starts from what the build knows (the difficulty, its
std and the never-solved flag), on B3's measured step-0 pass rates where the claim is about data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mixer import (
    ACODM,
    DUMP,
    GRESO,
    ODM,
    AdvantageBandit,
    BetaPosteriorSampler,
    Feedback,
    FrontierSampler,
    ProblemSampler,
    Static,
    TransferBandit,
    Uniform,
    feedback_from_rewards,
    make_mixer,
    make_problem_sampler,
)
from mixer.problems.prior import DifficultyPrior, informative_probability

RATES = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "b3_step0_rates.json"


def b3():
    """B3's train problems: source, difficulty, std, never solved (at the item-response cap) and
    the measured step-0 pass rate (16 samples each)."""
    rec = json.loads(RATES.read_text())
    probs = rec["problems"]
    src = np.array([p["source"] for p in probs])
    d = np.array([p["difficulty"] for p in probs])
    sd = np.array([p["difficulty_std"] for p in probs])
    p = np.array([p["passes"] for p in probs]) / rec["samples"]
    return src, d, sd, d >= d.max() - 1e-9, p


def groups_of(src):
    return {n: np.flatnonzero(src == n) for n in sorted(set(src.tolist()))}


# ---- the prior --------------------------------------------------------------------------------
def test_the_prior_reads_the_curated_scale_and_the_never_solved_flag():
    d = np.array([0.1, 0.5, 0.9, np.nan, 0.9])
    pr = DifficultyPrior.from_unit(d, [0.05, 0.1, 0.05, np.nan, 0.05], [0, 0, 0, 0, 1], tau=0.5)
    assert pr.mean[:3] == pytest.approx(-np.log(d[:3] / (1 - d[:3])))  # pass logit = -b
    assert pr.std[0] == pytest.approx(np.hypot(0.05 / (0.1 * 0.9), 0.5))
    assert np.isnan(pr.mean[3]) and not pr.known[3]
    assert pr.mean[4] == pytest.approx(np.log(0.01 / 0.99))  # never solved: p 0.01, whatever d says
    p = pr.pass_rate()
    assert p[0] > 0.8 and 0.4 < p[1] < 0.6 and p[4] < 0.03 < p[2] and np.isnan(p[3])
    inf = pr.informative(8)
    assert inf[1] > inf[0] and inf[1] > inf[4] and np.isnan(inf[3])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        DifficultyPrior.from_unit([1.5])
    with pytest.raises(ValueError, match="never_solved has 1 values for 2"):
        DifficultyPrior.from_unit([0.1, 0.2], never_solved=[True])


def test_on_b3_the_prior_ranks_the_informative_problems_and_the_sources():
    src, d, sd, never, p = b3()
    pr = DifficultyPrior.from_unit(d, sd, never)
    true = informative_probability(p, 8)
    guess = pr.informative(8)
    assert np.corrcoef(guess, true)[0, 1] > 0.6
    names = sorted(set(src.tolist()))
    learn = pr.source_learnability([np.flatnonzero(src == n) for n in names], 8)
    by = dict(zip(names, learn, strict=True))
    # lists and algos teach, mislabeled and compose do not (measured: 0.40, 0.26, 0.00, 0.02)
    assert min(by["lists"], by["algos"]) > 2.5 * max(by["mislabeled"], by["compose"])


# ---- source mixers ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("policy", "takes"),
    [(Uniform, False), (Static, False), (ODM, False), (AdvantageBandit, True), (DUMP, True),
     (TransferBandit, True), (ACODM, True)],
)  # fmt: skip
def test_every_policy_that_learns_starts_from_the_prior_and_resumes_with_it(policy, takes):
    m = policy(3, seed=0, names=["a", "b", "c"])
    before = m.weights()
    assert m.set_prior([0.6, 0.3, 0.0], weights=[0.6, 0.4, 0.0]) is takes
    w = m.weights()
    if takes:
        assert w[0] > w[1] > w[2]  # the prior's order, from the first step
    else:
        assert np.array_equal(w, before)
    fb = Feedback(counts=[4, 4, 4], adv_abs=[0.5, 0.2, 0.0], zero_adv=[0.3, 0.7, 1.0])
    m.update(fb)
    again = policy(3, seed=0, names=["a", "b", "c"])
    again.load_state_dict(m.state_dict())
    assert np.array_equal(again.weights(), m.weights())
    assert (again.prior_learnability is None) is (not takes)
    with pytest.raises(RuntimeError, match="after the first update"):
        m.set_prior([0.1, 0.1, 0.1])


def test_acodm_with_a_prior_has_no_warm_up_and_starts_at_the_prior_weights():
    m = ACODM(4, horizon=100, seed=0)
    assert m.warmup == 5  # without a prior: 5% of the run on ODM, as before
    m.set_prior([0.5, 0.3, 0.1, 0.0], weights=[0.5, 0.3, 0.15, 0.05])
    assert m.warmup == 0
    assert m.weights() == pytest.approx(np.array([0.5, 0.3, 0.15, 0.05]) * 0.9 + 0.1 / 4, abs=0.03)
    m.set_horizon(400)  # an adapter telling the run's length keeps the prior's start
    assert m.warmup == 0


@pytest.mark.parametrize("horizon", [60, 200, 1000])
def test_acodm_noise_and_steps_are_sized_from_the_run_so_it_settles_in_its_first_fifth(horizon):
    m = ACODM(3, horizon=horizon, seed=0)
    window = 0.2 * horizon
    assert m.sigma * m.sigma_decay**window == pytest.approx(m.sigma_min, rel=1e-6)
    assert m.actor_opt.lr == pytest.approx(np.clip(3.0 / window, 1e-2, 0.2))
    m.set_horizon(2 * horizon) if m.horizon_origin != "user" else None
    fixed = ACODM(3, horizon=horizon, actor_lr=0.01, sigma_decay=0.995, seed=0)
    assert fixed.actor_opt.lr == 0.01 and fixed.sigma_decay == 0.995  # given values are kept


def test_the_contribution_reward_is_each_sources_share_of_the_informative_groups():
    fb = feedback_from_rewards(
        [1, 0, 1, 1, 0, 0, 1, 0], [0, 0, 0, 0, 1, 1, 2, 2], 3, group_ids=[0, 0, 1, 1, 2, 2, 3, 3]
    )
    assert fb.zero_adv.tolist() == [0.5, 1.0, 0.0]
    m = ACODM(3, reward="contribution", horizon=50, seed=0)
    c, _ = m._coefficients(fb, np.full(3, np.nan), np.full(3, np.nan))
    assert c.tolist() == pytest.approx([0.5 * 2 / 4, 0.0, 1 / 4])  # counts are groups: 2, 1, 1
    no_groups = Feedback(counts=[1, 1, 1], adv_abs=[0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="zero_adv"):
        for _ in range(60):
            m.update(no_groups)


# ---- problem samplers -------------------------------------------------------------------------
def test_from_dataset_hands_every_sampler_the_prior_and_its_mixer_the_sources_learnability():
    src, d, sd, never, p = b3()
    table = {"source": src.tolist(), "difficulty": d.tolist(), "difficulty_std": sd.tolist(),
             "never_solved": never.tolist()}  # fmt: skip
    for cls in (ProblemSampler, BetaPosteriorSampler, GRESO, FrontierSampler):
        s = cls.from_dataset(table, 16, mixer="dump", seed=0)
        assert s.prior is not None and s.prior.never_solved.sum() == 215
        w = dict(zip(s.names, s.mixer.weights(), strict=True))
        assert w["lists"] > w["mislabeled"] and s.mixer.prior_learnability is not None
    bare = ProblemSampler.from_dataset({"source": src.tolist()}, 16, mixer="dump")
    assert bare.prior is None and bare.mixer.prior_learnability is None  # without: as before
    with pytest.raises(Exception, match="no column 'difficulty'"):
        FrontierSampler.from_dataset({"source": src.tolist()}, 16)


def test_the_default_stack_draws_informative_problems_from_its_first_batch_on_b3():
    """Uniform draws give an informative group (G = 8) with chance 0.15 on B3's step-0 rates; the
    default stack's first batch, before any reward, over two and a half times that."""
    src, d, sd, never, p = b3()
    table = {"source": src.tolist(), "difficulty": d.tolist(), "difficulty_std": sd.tolist(),
             "never_solved": never.tolist()}  # fmt: skip
    inf = informative_probability(p, 8)
    first = []
    for seed in range(5):
        s = FrontierSampler.from_dataset(table, 16, seed=seed, num_steps=200)
        assert type(s.mixer).__name__ == "ACODMResidual"
        first.append(inf[np.asarray(s.next_batch())].mean())
    assert inf.mean() < 0.16 and np.mean(first) > 0.4


def test_make_problem_sampler_gives_every_kind_the_prior():
    src, d, sd, never, p = b3()
    for kind in ("uniform", "frontier", "dapo", "band", "greso", "mopps"):
        s = make_problem_sampler(kind, groups_of(src), 8, mixer="advantage-bandit",
                                 difficulty=d, difficulty_std=sd)  # fmt: skip
        assert s.prior is not None and s.mixer.prior_learnability is not None


def test_mopps_with_the_prior_starts_each_problem_at_its_own_beta_and_decays_to_it():
    d = np.array([0.1, 0.9, np.nan])
    s = BetaPosteriorSampler({"a": [0, 1, 2]}, 2, difficulty=d, prior_strength=4.0, decay=0.5)
    p0 = s.posterior_mean([0, 1, 2])
    assert p0[0] > 0.8 and p0[1] < 0.2 and p0[2] == 0.5  # unknown: Beta(1, 1)
    assert s.alpha[0] + s.beta[0] == pytest.approx(4.0)
    for _ in range(30):  # all failures, then back towards its prior as the decay forgets
        s.learn(np.repeat([0], 4), np.zeros(4), group_size=4)
    assert s.posterior_mean([0])[0] < 0.3
    a0, b0 = s.alpha0[0], s.beta0[0]
    s.alpha[0], s.beta[0] = 0.5 * s.alpha[0] + 0.5 * a0, 0.5 * s.beta[0] + 0.5 * b0
    assert s.alpha[0] > 0


def _greso_walk(s: GRESO, src: int, k: int) -> list[int]:
    """GRESO's pre-rollout skipping as published, one candidate after another (the specification
    the vectorised `_take` must match)."""
    out: list[int] = []
    while len(out) < k:
        cand = np.asarray(ProblemSampler._take(s, src, k - len(out)), dtype=np.int64)
        skip = s.rng.random(cand.size) < s._skip_probability(cand)
        s.ledger["skipped_prompts"] += int(skip.sum())
        out.extend(cand[~skip].tolist())
    return out


def test_greso_skips_in_one_pass_exactly_as_the_one_by_one_walk():
    """The walk took 170 ms a step once most prompts were solved (the replay's `learning`); the
    vectorised pass consumes the same candidates and random numbers."""
    p = np.r_[np.full(40, 1.0), np.full(10, 0.5), np.full(30, 0.0)]
    runs = []
    for walk in (False, True):
        s = GRESO({"a": np.arange(50), "b": np.arange(50, 80)}, 12, seed=3)
        if walk:
            s._take = lambda src, k, s=s: _greso_walk(s, src, k)  # type: ignore[method-assign]
        rng = np.random.default_rng(0)
        seq = []
        for _ in range(60):
            rows = np.asarray(s.next_batch())
            seq.append(rows.tolist())
            r = (rng.random((len(rows), 4)) < p[rows][:, None]).astype(float)
            s.learn(np.repeat(rows, 4), r.ravel(), weights_id=s.last_weights_id, group_size=4)
        runs.append((seq, dict(s.ledger), s.rng.random()))
    assert runs[0] == runs[1]
    assert runs[0][1]["skipped_prompts"] > 10_000  # mostly solved: it skipped a lot


def test_the_default_stack_resumes_exactly():
    src, d, sd, never, p = b3()
    table = {"source": src.tolist(), "difficulty": d.tolist(), "difficulty_std": sd.tolist(),
             "never_solved": never.tolist()}  # fmt: skip
    rng = np.random.default_rng(1)

    def step(s):
        rows = np.asarray(s.next_batch())
        r = (rng.random((len(rows), 8)) < p[rows][:, None]).astype(float)
        s.learn(np.repeat(rows, 8), r.ravel(), weights_id=s.last_weights_id, group_size=8)
        return rows.tolist()

    a = FrontierSampler.from_dataset(table, 16, seed=2, num_steps=50)
    for _ in range(10):
        step(a)
    saved = a.state_dict()
    b = FrontierSampler.from_dataset(table, 16, seed=2, num_steps=50)
    b.load_state_dict(saved)
    state = rng.bit_generator.state
    after_a = [step(a) for _ in range(5)]
    rng.bit_generator.state = state
    after_b = [step(b) for _ in range(5)]
    assert after_a == after_b
    assert np.array_equal(a.mixer.weights(), b.mixer.weights())


def test_a_mixer_by_name_takes_the_prior_through_make_mixer_too():
    m = make_mixer("dump", 2)
    assert m.set_prior([0.5, 0.1]) and m.weights()[0] > m.weights()[1]


def test_verl_gives_every_problem_sampler_the_rows_prior_and_the_frontier_its_own_stack():
    """`+data.sampler.problems=<kind>`: the prior from the rows' difficulty columns (and
    `never_solved`) for every kind; a missing column is an error only where the sampler's model is
    the prior's (frontier) or the key was named. verl itself is not needed to build the sampler."""
    from mixer.adapters.verl import MixerCurriculumSampler

    src, d, sd, never, p = b3()
    rows = [{"source": s, "difficulty": float(x), "difficulty_std": float(y), "never_solved": bool(n)}
            for s, x, y, n in zip(src, d, sd, never, strict=True)]  # fmt: skip
    build = MixerCurriculumSampler._problem_sampler
    for kind in ("mopps", "greso", "uniform"):
        s = build(kind, {}, rows, src.tolist(), 8, make_mixer("dump", 6), 0)
        assert s.prior is not None and s.prior.never_solved.sum() == 215
    stack = build("frontier", {}, rows, src.tolist(), 8, None, 0, {"optimism": 1.0})
    assert type(stack.mixer).__name__ == "ACODMResidual"
    bare = [{"source": s} for s in src]
    assert build("mopps", {}, bare, src.tolist(), 8, make_mixer("dump", 6), 0).prior is None
    with pytest.raises(KeyError, match="difficulty"):
        build("frontier", {}, bare, src.tolist(), 8, None, 0)
