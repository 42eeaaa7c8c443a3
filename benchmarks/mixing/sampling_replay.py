"""Sampling replay: every codemix sampler and the published baselines, driven only through their
public `next_batch` / `learn` calls, on problems whose pass rates the replay knows, with no model.

A scenario is a set of problems (source, curated difficulty, a true pass rate that may move); each
step an arm draws prompts, every prompt gets `G` completions whose rewards are Bernoulli draws of
the problem's current pass rate, and the arm hears them. What is measured is what GRPO can learn
from: **informative groups** (a group whose rewards are not all equal has a nonzero advantage)
per **rollout generated** (every completion counts: probes, discarded groups, refills), against
uniform and against an oracle that knows every current pass rate (it draws the `B` problems most
likely to give an informative group). The share of that gap an arm closes is the headline, over
the run and over its first 10 steps.

Scenarios (`SCENARIOS`): `b3`, B3's measured step-0 pass rates (`benchmarks/mixing/replay_rates.py`), fixed;
`learning`, the same problems improving as they are trained (each informative group raises its
problem's and its source's pass logit, and related sources' a little), so easy problems saturate
and hard ones come within reach; `revival`, a dead source (compose) that comes alive a quarter
into the run; `contradict`, `learning` with a source whose tests contradict its statements
(mislabeled, as in B3: its statements are those of arith and lists): an untrained policy passes
them now and then by luck (2-12%), less as it learns the statements' real meaning (its pass logit
falls as arith and lists improve), and training on its groups lowers arith's and lists' pass
rates. Its groups teach harm: they never count as informative.

Generated scenarios (`generate_world`): `g<seed>`, `h<seed>` (with a source that learns and
hurts) and `c<seed>`, which is `h<seed>` with a **cost for concentration** (`GenWorld.carry_power`,
`CARRY_POWER` = 1, `--carry-power`): a problem's own pass logit still rises by `problem_gain` with
every informative group trained on it, but what carries to the rest of its source (the source's
ability, and so the held-out target) shrinks with repeats: the k-th informative group ever trained
on problem j adds `gain_s * k^-carry_power` to its source's ability, where the other worlds add
`gain_s` every time. So with carry_power 1, a problem trained n times has carried
`gain_s * (1 + 1/2 + ... + 1/n)`, about `gain_s * ln n`, where n distinct problems carry
`gain_s * n` (B3 v2's real loop: a draw that trained on fewer problems generalised less,
benchmarks/pages/b3v2.md section 22a). Every generated run also reports `held_out_gain`, the gain
over the run of the held-out target (`GenWorld.held_out`: the useful sources' problems at their
logits without the gains their own training gave them: problems like the pool's that no arm draws),
and `top_tenth_share` (the share of the draws on the most-drawn tenth of the pool); in `c<seed>`
the trainer's evaluation (`eval_loss`) measures that held-out target. `g` and `h` are unchanged.

    python benchmarks/mixing/sampling_replay.py --part dev        # development seeds 0-4: every choice
    python benchmarks/mixing/sampling_replay.py --part fresh      # fresh seeds 100-104: the headline
    python benchmarks/mixing/sampling_replay.py --arms uniform,stack --scenarios b3 --seeds 0 --steps 20

Results: `benchmarks/results/sampling_replay_<part>.json`, and a table on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
if not os.environ.get("CODEMIX_REPLAY_CODE"):  # else PYTHONPATH names the checkout measured
    sys.path.insert(0, str(HERE.parents[1]))

from filters.stages.difficulty.irt import logit_to_unit  # noqa: E402
from mixer import (  # noqa: E402
    GRESO,
    BetaPosteriorSampler,
    DynamicSampling,
    FrontierSampler,
    ProblemSampler,
    Static,
)

RATES = HERE.parent / "data" / "b3_step0_rates.json"
#: A mixer has settled once the 10-step moving average of its weights stays within this L1
#: distance of its final weights (the mean over the last tenth of the run).
SETTLE_TOL = 0.15
RESULTS = HERE.parent / "results"
PARTS = {"dev": [0, 1, 2, 3, 4], "fresh": [100, 101, 102, 103, 104],
         "gen-dev": [0, 1, 2], "gen-fresh": [0, 1, 2, 3, 4]}  # fmt: skip
#: The generated scenarios of a part (`generate_world`): development below 1000; the registered
#: block (benchmarks/pages/mixing-generated.md) 1000-1039, run seeds 0-4, 200 steps.
GEN_PARTS = {"gen-dev": list(range(0, 40)), "gen-fresh": list(range(1000, 1040))}
SCENARIOS = ("b3", "learning", "revival", "contradict")
DEAD_LOGIT = -6.0  # a problem measured at 0 of 16 (p = 0.0025)
SOLVED_LOGIT = 6.0
#: sd of the trainer's evaluation (`World.eval_loss`), sent to every arm as `Feedback.eval_loss`
EVAL_NOISE = 0.002
#: the sources the `learning` scenario lets one another's training carry over to
RELATED = {"arith": ("lists",), "lists": ("arith", "algos", "compose"), "algos": ("lists",),
           "compose": ("lists",), "strings": ()}  # fmt: skip


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p / (1 - p))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def informative_probability(p: np.ndarray, g: int) -> np.ndarray:
    """P(a group of g Bernoulli(p) rewards is not all equal)."""
    return 1.0 - p**g - (1.0 - p) ** g


# ---- the world --------------------------------------------------------------------------------
@dataclass
class World:
    """Problems with a source, the build's difficulty and a true pass logit that moves by the
    scenario's rules. `harmful` is the source whose groups teach the wrong thing (or None)."""

    scenario: str
    problem_id: list[str]
    source: list[str]
    difficulty: np.ndarray
    difficulty_std: np.ndarray
    logit: np.ndarray  # per problem, before the source's ability
    steps: int
    harmful: str | None = None
    names: list[str] = field(default_factory=list)
    src: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ability: np.ndarray = field(default_factory=lambda: np.zeros(0))
    step: int = 0
    eval_rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))

    def __post_init__(self) -> None:
        self.names = sorted(set(self.source))
        self.src = np.array([self.names.index(s) for s in self.source], dtype=np.int64)
        self.ability = np.zeros(len(self.names))
        self.base = self.logit.copy()

    @property
    def groups(self) -> dict[str, np.ndarray]:
        return {n: np.flatnonzero(self.src == k) for k, n in enumerate(self.names)}

    @property
    def never_solved(self) -> np.ndarray:
        """B3's build was ranked by one item-response fit with one prior: every problem no ranking
        checkpoint passed got the same, highest, difficulty (215 of 398), and no other did."""
        return self.difficulty >= np.nanmax(self.difficulty) - 1e-9

    def table(self) -> dict[str, list]:
        """The dataset a trainer would read (an export's columns): what `from_dataset` takes."""
        return {
            "problem_id": list(self.problem_id),
            "source": list(self.source),
            "difficulty": self.difficulty.tolist(),
            "difficulty_std": self.difficulty_std.tolist(),
            **({"never_solved": self.never_solved.tolist()} if _takes_never_solved() else {}),
        }

    def prior_kwargs(self) -> dict[str, Any]:
        kw = {"difficulty": self.difficulty, "difficulty_std": self.difficulty_std}
        if _takes_never_solved():  # codemix before issue 40 had no such argument
            kw["never_solved"] = self.never_solved
        return kw

    def pass_rates(self) -> np.ndarray:
        return _sigmoid(self.logit + self.ability[self.src])

    def eval_loss(self) -> float:
        """The trainer's evaluation on the target: minus the mean pass rate of the problems whose
        groups teach (a fixed held-out set measured with noise of sd `EVAL_NOISE`)."""
        ok = self.useful(np.arange(len(self.logit)))
        noise = EVAL_NOISE * self.eval_rng.standard_normal()
        return float(-self.pass_rates()[ok].mean() + noise)

    def useful(self, problems: np.ndarray) -> np.ndarray:
        """Whether a group of each problem can teach (not the harmful source)."""
        if self.harmful is None:
            return np.ones(len(problems), dtype=bool)
        return self.src[problems] != self.names.index(self.harmful)

    def advance(self, trained: np.ndarray) -> None:
        """One training step on the informative groups of problems `trained` (with repeats)."""
        self.step += 1
        sc = self.scenario
        if sc == "revival" and "compose" in self.names:
            k = self.names.index("compose")
            start, ramp = self.steps // 4, max(self.steps // 20, 1)
            frac = min(max((self.step - start) / ramp, 0.0), 1.0)
            m = self.src == k
            # compose comes alive: its dead problems rise to a spread around p = 0.3
            self.logit[m] = self.base[m] + frac * self._revival[m]
        if sc in ("learning", "contradict") and trained.size:
            per_src = np.bincount(self.src[trained], minlength=len(self.names)).astype(float)
            np.add.at(self.logit, trained, 0.25)  # a problem trained on gets easier
            gain = 0.015 * per_src
            spill = np.zeros(len(self.names))
            for k, n in enumerate(self.names):
                for other in RELATED.get(n, ()):
                    if other in self.names:
                        spill[self.names.index(other)] += 0.3 * gain[k]
            if self.harmful is not None:
                h = self.names.index(self.harmful)
                victims = [self.names.index(v) for v in ("arith", "lists") if v in self.names]
                spill[victims] -= 0.03 * per_src[h]
                gain[h] = 0.0
                # the statements' real meaning, learnt, makes the contradicting tests fail more
                spill[h] = -0.5 * float((gain + spill)[victims].clip(min=0.0).sum())
            self.ability += gain + spill

    def setup(self, rng: np.random.Generator) -> None:
        """Scenario-specific draws fixed at the start (the same for every arm of one seed)."""
        self._revival = np.zeros(len(self.logit))
        if self.scenario == "revival" and "compose" in self.names:
            m = self.src == self.names.index("compose")
            target = rng.normal(-0.8, 1.0, m.sum())
            self._revival[m] = target - self.base[m]
        if self.scenario == "contradict" and self.harmful in self.names:
            m = self.src == self.names.index(self.harmful)
            self.logit[m] = self.base[m] = _logit(rng.uniform(0.02, 0.12, m.sum()))


def _takes_never_solved() -> bool:
    import inspect

    return "never_solved" in inspect.signature(FrontierSampler).parameters


def load_world(scenario: str, steps: int, seed: int, rates: Path = RATES) -> World:
    rec = json.loads(rates.read_text())
    probs = rec["problems"]
    p = np.array([x["passes"] for x in probs]) / rec["samples"]
    logit = np.where(p <= 0, DEAD_LOGIT, np.where(p >= 1, SOLVED_LOGIT, _logit(p)))
    w = World(
        scenario=scenario,
        problem_id=[x["problem_id"] for x in probs],
        source=[x["source"] for x in probs],
        difficulty=np.array([np.nan if x["difficulty"] is None else x["difficulty"] for x in probs]),
        difficulty_std=np.array(
            [np.nan if x["difficulty_std"] is None else x["difficulty_std"] for x in probs]
        ),
        logit=logit,
        steps=steps,
        harmful="mislabeled" if scenario == "contradict" else None,
    )
    w.setup(np.random.default_rng([seed, 7]))
    return w



# ---- generated scenarios ------------------------------------------------------------------------
#: What a generated scenario may hold (each drawn per scenario seed; see `generate_world`).
GEN_FEATURES = ("revival", "saturation", "forgetting", "twins", "noise", "contradict", "misflag",
                "label_only")  # fmt: skip
#: How the build's difficulty of a source relates to its true step-0 pass rates.
PRIOR_KINDS = ("good", "noisy", "shifted", "upside-down", "missing")


@dataclass
class GenWorld(World):
    """A generated scenario (`generate_world`): sources with their own pass-rate shapes, build
    columns of a drawn quality, and per-source dynamics. `spec` says what was drawn."""

    spec: dict[str, Any] = field(default_factory=dict)
    flags: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    batch: int = 16
    group: int = 8
    #: The cost for concentration (`c<seed>` scenarios; 0: off, the world every registered block
    #: ran): the k-th informative group trained on one problem carries k^-carry_power of its
    #: source's gain to the rest of the source (see `advance`).
    carry_power: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        self.trained_count = np.zeros(len(self.logit))  # informative groups trained, per problem
        self.own = np.zeros(len(self.logit))  # what training a problem gave that problem alone

    def held_out(self) -> float:
        """The held-out target: the useful sources' problems as they would pass had none of them
        been trained on itself (each at its pass logit without the gains its own training gave
        it, plus its source's ability): problems like the pool's that no arm ever draws. What
        carries to it is the sources' abilities only."""
        ok = self.useful(np.arange(len(self.logit)))
        return float(_sigmoid(self.logit - self.own + self.ability[self.src])[ok].mean())

    def eval_loss(self) -> float:
        """As `World.eval_loss`; with the cost for concentration on (`carry_power` > 0) the
        evaluation measures the held-out target (`held_out`), as B3's trainer does."""
        if self.carry_power <= 0:
            return super().eval_loss()
        return float(-self.held_out() + EVAL_NOISE * self.eval_rng.standard_normal())

    @property
    def never_solved(self) -> np.ndarray:
        return self.flags

    def _idx(self, name: str | None) -> int | None:
        return None if name is None or name not in self.names else self.names.index(name)

    def useful(self, problems: np.ndarray) -> np.ndarray:
        bad = [self.names.index(n) for n in (self.harmful, self.spec.get("noise")) if n]
        return ~np.isin(self.src[problems], bad)

    def setup(self, rng: np.random.Generator) -> None:
        self._revival = np.zeros(len(self.logit))
        r = self._idx(self.spec.get("revival"))
        if r is not None:
            m = self.src == r
            self._revival[m] = rng.normal(-0.8, 1.0, m.sum()) - self.base[m]
        h = self._idx(self.harmful)
        if h is not None and self.spec.get("harm", "contradict") == "contradict":
            m = self.src == h
            self.logit[m] = self.base[m] = _logit(rng.uniform(0.02, 0.12, m.sum()))

    def advance(self, trained: np.ndarray) -> None:
        """One training step on the informative groups of `trained` (with repeats): each raises its
        problem's pass logit by `problem_gain`, and its source's ability (every problem of the
        source, the held-out target's too) by `gain_s * k^-carry_power` for the k-th informative
        group ever trained on that problem (carry_power 0: by `gain_s` each time, as every
        registered block ran); related sources and twins take their share of that, a harmful
        source's groups lower its victims by 0.03 each whatever the repeats."""
        self.step += 1
        sp, S = self.spec, len(self.names)
        r = self._idx(sp.get("revival"))
        if r is not None:
            start, ramp = int(sp["revival_at"] * self.steps), max(self.steps // 20, 1)
            frac = min(max((self.step - start) / ramp, 0.0), 1.0)
            m = self.src == r
            self.logit[m] = self.base[m] + frac * self._revival[m]
            self.own[m] = 0.0  # the revival resets these logits, own gains included
        per_src = np.bincount(self.src[trained], minlength=S).astype(float)
        np.add.at(self.logit, trained, sp["problem_gain"])
        np.add.at(self.own, trained, sp["problem_gain"])
        carried = per_src
        if self.carry_power > 0 and trained.size:
            # the k-th informative group ever trained on a problem carries k^-carry_power to its
            # source (repeats inside one step count in order)
            t = np.sort(trained)
            first = np.r_[0, np.flatnonzero(np.diff(t)) + 1]
            rank = np.arange(len(t)) - np.repeat(first, np.diff(np.r_[first, len(t)]))
            k = self.trained_count[t] + rank + 1.0
            carried = np.bincount(self.src[t], weights=k**-self.carry_power, minlength=S)
        np.add.at(self.trained_count, trained, 1.0)
        gain = np.array([sp["gain"][n] for n in self.names]) * carried
        spill = np.zeros(S)
        for a, b in sp["related"]:
            ia, ib = self.names.index(a), self.names.index(b)
            spill[ib] += 0.3 * gain[ia]
            spill[ia] += 0.3 * gain[ib]
        for a, b in sp["twins"]:  # twins share what is learnt
            ia, ib = self.names.index(a), self.names.index(b)
            spill[ib] += gain[ia]
            spill[ia] += gain[ib]
        f = self._idx(sp.get("forgetting"))
        if f is not None:  # a source forgets when it is not trained
            spill[f] -= sp["forget_rate"] * max(0.0, 1.0 - per_src[f] / 2.0)
        noise = self._idx(sp.get("noise"))
        if noise is not None:
            gain[noise] = spill[noise] = 0.0
            self.logit[self.src == noise] = 0.0  # a coin flip, whatever is trained
        h = self._idx(self.harmful)
        if h is not None:
            victims = [self.names.index(v) for v in sp["victims"]]
            spill[victims] -= 0.03 * per_src[h]
            if sp.get("harm", "contradict") == "contradict":  # its tests fail more as the victims learn
                gain[h] = 0.0
                spill[h] = -0.5 * float((gain + spill)[victims].clip(min=0.0).sum())
            # "hacks": it learns as any source does (its pass rates rise when trained)
        self.ability += gain + spill


def generate_world(scenario_seed: int, steps: int, seed: int, hacks: bool = False) -> GenWorld:
    """Scenario `scenario_seed` of the generated family (the same for every run seed), set up for
    run seed `seed` (the per-run draws: a revived source's new rates, the harmful source's luck).

    With `hacks` (the second family, scenarios `h<seed>`): the same scenario, and, drawn from a
    stream of its own with probability 0.5 where it has no contradicting-tests source, a source
    that **learns and hurts** (as a reward that can be hacked: its problems start at pass rates
    around 0.2-0.6, its build columns look learnable, its pass rates rise when trained as any
    source's do, and each of its groups lowers two live sources' pass logits by 0.03; its groups
    never count as informative and the oracle never draws them). The problem model sees it learn;
    only the evaluation on the target says it hurts.

    Drawn per scenario: 3-10 sources of 20-300 problems (at most 1,200 in all); each source's
    step-0 pass logits (normal around -3..2 with spread 0.5-2.5, bimodal with a dead part, dead,
    or easy); the build's difficulty per source (`PRIOR_KINDS`: good, noisy, shifted by a
    constant, upside-down, missing) and its `never_solved` flags (right: the problems below p 2%;
    `misflag`: a live source flagged as never solved, at the top difficulty; `label_only`: a dead
    source whose columns look learnable); learning (each informative group raises its problem's
    logit by 0.1-0.4 and its source's by 0.005-0.03, related sources 0.3 of that) and any of
    `GEN_FEATURES`: a source that saturates fast, one that forgets when not trained, a dead one
    that revives at 15-60% of the run, twins (one source's problems again, sharing what is
    learnt), a pure-noise source (coin-flip rewards: it looks informative and teaches nothing),
    a contradicting-tests source (as `contradict`); G in {4, 8, 16}, B in {8, 16, 32}."""
    rng = np.random.default_rng([scenario_seed, 52])
    S = int(rng.integers(3, 11))
    sizes = np.exp(rng.uniform(np.log(20), np.log(300), S)).astype(int)
    if sizes.sum() > 1200:
        sizes = np.maximum(20, (sizes * 1200 / sizes.sum()).astype(int))
    on = {f: bool(rng.random() < 0.35) for f in GEN_FEATURES}
    names = [f"s{k:02d}" for k in range(S)]
    shapes = rng.choice(["normal", "normal", "bimodal", "dead", "easy"], S)
    shapes[0] = "normal"  # something to learn from
    logit, b, bsd, flags, source = [], [], [], [], []
    quality = {n: str(rng.choice(PRIOR_KINDS, p=[0.45, 0.2, 0.15, 0.1, 0.1])) for n in names}
    spec: dict[str, Any] = {"sources": {}, "features": on}
    dead_sources = [n for n, sh in zip(names, shapes, strict=True) if sh == "dead"]
    if on["revival"] and not dead_sources and S > 3:
        shapes[-1] = "dead"
        dead_sources = [names[-1]]
    live = [n for n, sh in zip(names, shapes, strict=True) if sh in ("normal", "bimodal")]
    roles: dict[str, str] = {}
    if on["revival"] and dead_sources:
        roles[dead_sources[0]] = "revival"
    if on["label_only"]:
        left = [n for n in dead_sources if n not in roles]
        if left:
            roles[left[0]] = "label_only"
    if on["misflag"] and len(live) > 1:
        roles[live[-1]] = "misflag"
    for k, n in enumerate(names):
        m = int(sizes[k])
        sh = shapes[k]
        if sh == "normal":
            z = rng.normal(rng.uniform(-3, 2), rng.uniform(0.5, 2.5), m)
        elif sh == "bimodal":
            z = np.where(rng.random(m) < rng.uniform(0.3, 0.7), DEAD_LOGIT,
                         rng.normal(rng.uniform(-2, 1), 1.0, m))  # fmt: skip
        elif sh == "dead":
            z = np.full(m, DEAD_LOGIT) + rng.normal(0, 0.3, m)
        else:
            z = rng.normal(3.5, 1.0, m)
        q = quality[n]
        nb = -z  # the build's logit difficulty of a model at ability 0
        if q == "good":
            db, sd = nb + rng.normal(0, 0.7, m), np.full(m, 0.7)
        elif q == "noisy":
            db, sd = nb + rng.normal(0, 2.0, m), np.full(m, 1.0)
        elif q == "shifted":
            db, sd = nb + rng.normal(0, 2.0) + rng.normal(0, 0.5, m), np.full(m, 0.5)
        elif q == "upside-down":
            db, sd = -nb + rng.normal(0, 0.7, m), np.full(m, 0.7)
        else:
            db, sd = np.full(m, np.nan), np.full(m, np.nan)
        fl = z < -4.0
        if roles.get(n) == "label_only":  # dead, but the columns say learnable
            db, sd, fl = rng.normal(0.0, 1.0, m), np.full(m, 0.7), np.zeros(m, dtype=bool)
            q = "label-only"
        if roles.get(n) == "misflag":  # live, but flagged as no ranking model ever passing it
            db, sd, fl = np.full(m, 4.0), np.full(m, 0.5), np.ones(m, dtype=bool)
            q = "misflagged"
        if q != "missing" and roles.get(n) != "misflag":
            db = np.where(fl, 4.0, db)
        logit.append(z)
        b.append(db)
        bsd.append(sd)
        flags.append(fl)
        source += [n] * m
        spec["sources"][n] = {"size": m, "shape": str(sh), "prior": q, "role": roles.get(n)}
    extra_names: list[str] = []
    twins: list[tuple[str, str]] = []
    if on["twins"]:
        a = str(rng.choice(live or names[:1]))
        t = f"s{S:02d}"
        i = names.index(a)
        logit.append(logit[i] + rng.normal(0, 0.2, len(logit[i])))
        b.append(b[i].copy())
        bsd.append(bsd[i].copy())
        flags.append(flags[i].copy())
        source += [t] * len(logit[i])
        twins.append((a, t))
        extra_names.append(t)
        spec["sources"][t] = {**spec["sources"][a], "role": f"twin of {a}"}
    def extra(name: str, z: np.ndarray, db: np.ndarray, shape: str) -> None:
        """A source added after the drawn ones, with build columns that look learnable."""
        logit.append(z)
        b.append(db)
        bsd.append(np.full(len(z), 0.7))
        flags.append(np.zeros(len(z), dtype=bool))
        source.extend([name] * len(z))
        spec["sources"][name] = {"size": len(z), "shape": shape, "prior": "good", "role": None}

    noise = harmful = None
    if on["noise"]:
        noise = f"s{S + len(extra_names):02d}"
        m = int(rng.integers(20, 150))
        extra(noise, np.zeros(m), rng.normal(0.0, 0.7, m), "coin")  # the build measured coin flips
        spec["sources"][noise]["role"] = "noise"
        extra_names.append(noise)
    all_names = names + extra_names
    victims: list[str] = []
    if on["contradict"] and live:
        harmful = f"s{S + len(extra_names):02d}"
        m = int(rng.integers(30, 150))
        # set per run (setup): 2-12% by luck; the build saw it learnable, hard-ish
        extra(harmful, np.full(m, -3.0), rng.normal(1.5, 0.7, m), "luck")
        all_names.append(harmful)
        victims = list(rng.choice(live, size=min(2, len(live)), replace=False))
        spec["sources"][harmful]["role"] = f"contradicts, hurts {'+'.join(victims)}"
    harm = "contradict"
    hrng = np.random.default_rng([scenario_seed, 52, 2])  # the second family's own draws
    if hacks and harmful is None and live and hrng.random() < 0.5:
        harmful, harm = f"s{S + len(extra_names):02d}", "hacks"
        m = int(hrng.integers(30, 150))
        z_h = hrng.normal(-0.5, 1.0, m)
        extra(harmful, z_h, -z_h + hrng.normal(0, 0.7, m), "normal")  # the build saw it as it is
        all_names.append(harmful)
        victims = list(hrng.choice(live, size=min(2, len(live)), replace=False))
        spec["sources"][harmful]["role"] = f"learns and hurts {'+'.join(victims)}"
    gains = {n: float(rng.uniform(0.005, 0.03)) for n in all_names if n != harmful or harm == "contradict"}
    if harm == "hacks":
        gains[harmful] = float(hrng.uniform(0.005, 0.03))
    sat = forget = None
    if on["saturation"]:
        sat = str(rng.choice(live or names[:1]))
        gains[sat] = 0.08
        spec["sources"][sat]["role"] = (spec["sources"][sat]["role"] or "") + " saturates"
    if on["forgetting"]:
        forget = str(rng.choice(live or names[:1]))
        spec["sources"][forget]["role"] = (spec["sources"][forget]["role"] or "") + " forgets"
    related = []
    for _ in range(int(rng.integers(0, 3))):
        a, c = rng.choice(names, 2, replace=S < 2)
        if a != c:
            related.append((str(a), str(c)))
    spec.update(
        gain=gains, problem_gain=float(rng.uniform(0.1, 0.4)), related=related, twins=twins,
        noise=noise, victims=victims, harm=harm, forgetting=forget, forget_rate=float(rng.uniform(0.01, 0.04)),
        revival=next((n for n, r in roles.items() if r == "revival"), None),
        revival_at=float(rng.uniform(0.15, 0.6)), saturation=sat,
        group=int(rng.choice([4, 8, 16])), batch=int(rng.choice([8, 16, 32])),
    )  # fmt: skip
    z = np.concatenate(logit)
    db = np.concatenate(b)
    unit, unit_std = logit_to_unit(db, np.concatenate(bsd))
    unit = np.clip(unit, 0.02, 0.98)
    n_all = len(z)
    w = GenWorld(
        scenario=f"{'h' if hacks else 'g'}{scenario_seed}",
        problem_id=[f"g{scenario_seed}-{i}" for i in range(n_all)],
        source=source,
        difficulty=unit,
        difficulty_std=unit_std,
        logit=z,
        steps=steps,
        harmful=harmful,
        spec=spec,
        flags=np.concatenate(flags),
        batch=spec["batch"],
        group=spec["group"],
    )
    w.setup(np.random.default_rng([scenario_seed, seed, 7]))
    return w


def is_generated(scenario: str) -> bool:
    return scenario[:1] in ("g", "h", "c") and scenario[1:].isdigit()


#: The cost for concentration of the `c<seed>` scenarios (`GenWorld.carry_power`; `--carry-power`).
CARRY_POWER = 1.0


def make_world(scenario: str, steps: int, seed: int) -> World:
    """A named scenario (`SCENARIOS`) or a generated one (`g<scenario seed>`; `h<scenario seed>`:
    the same with the second family's source that learns and hurts, `generate_world`;
    `c<scenario seed>`: `h<scenario seed>` with the cost for concentration, `CARRY_POWER`)."""
    if is_generated(scenario):
        w = generate_world(int(scenario[1:]), steps, seed, hacks=scenario[0] in "hc")
        if scenario[0] == "c":
            w.scenario, w.carry_power = scenario, CARRY_POWER
        return w
    return load_world(scenario, steps, seed)

# ---- arms -------------------------------------------------------------------------------------
@dataclass
class StepRecord:
    rollouts: int  # completions generated this step (probes and discarded groups included)
    informative: int  # groups trained with a nonzero advantage (the harmful source's excluded)
    groups: int  # groups generated
    trained: np.ndarray  # problems of the informative groups trained (every source's)
    drawn: np.ndarray  # every problem a rollout was spent on
    weights: list[float] | None
    rounds: int
    overhead_s: float  # time inside the sampler's calls


class SamplerArm:
    """A codemix sampler driven through `next_batch` and `learn`. A sampler that drops groups
    (`drops_groups`) is refilled as a DAPO trainer does: whole new batches until `B` kept groups
    are there or `max_rounds` batches were generated; then the first `B` kept train."""

    def __init__(self, sampler: Any, g: int, max_rounds: int = 8, sketch: bool = False) -> None:
        self.sampler, self.g, self.max_rounds, self.sketch = sampler, g, max_rounds, sketch

    def _round(self, world: World, rng: np.random.Generator) -> tuple[Any, np.ndarray, np.ndarray, float]:
        t0 = time.perf_counter()
        rows = np.asarray(self.sampler.next_batch(), dtype=np.int64)
        wid = self.sampler.last_weights_id
        dt = time.perf_counter() - t0
        p = world.pass_rates()[rows]
        rewards = (rng.random((len(rows), self.g)) < p[:, None]).astype(np.float64)
        extra: dict[str, Any] = {"eval_loss": world.eval_loss()}
        if self.sketch:
            extra["grad_sketch"] = _sketch(world, rows, rewards, rng)
        t0 = time.perf_counter()
        out = self.sampler.learn(
            np.repeat(rows, self.g), rewards.ravel(), weights_id=wid, group_size=self.g, **extra
        )
        dt += time.perf_counter() - t0
        return out, rows, rewards, dt

    def step(self, world: World, rng: np.random.Generator) -> StepRecord:
        B = self.sampler.batch_size
        kept: list[int] = []
        kept_inf: list[bool] = []
        drawn: list[np.ndarray] = []
        rollouts = groups = rounds = 0
        overhead = 0.0
        weights = None
        while rounds < self.max_rounds:
            out, rows, rewards, dt = self._round(world, rng)
            overhead += dt
            if weights is None:
                weights = _weights_of(self.sampler)
            rounds += 1
            rollouts += rewards.size
            groups += len(rows)
            drawn.append(rows)
            keep = np.ones(len(rows), dtype=bool) if out is None else np.asarray(out.keep_group)
            inf = rewards.min(1) != rewards.max(1)
            kept.extend(rows[keep].tolist())
            kept_inf.extend(inf[keep].tolist())
            if not self.sampler.drops_groups or len(kept) >= B:
                break
        kept_a = np.asarray(kept[:B], dtype=np.int64)
        inf_a = np.asarray(kept_inf[:B], dtype=bool)
        # the trainer trains on every informative group (the harmful source's too: that is how it
        # hurts); only the count of informative groups leaves the harmful and the noise source out
        return StepRecord(rollouts, int((inf_a & world.useful(kept_a)).sum()), groups, kept_a[inf_a],
                          np.concatenate(drawn), weights, rounds, overhead)  # fmt: skip


class SpeedArm(SamplerArm):
    """SPEED-style screening (Zhang et al. 2025): each drawn prompt first gets `probes`
    completions; a prompt whose probes all agree is screened out (its probes were spent), the
    others get the rest of their group. Rounds of fresh prompts until `B` prompts passed. The
    sampler hears every group, screened ones as groups of `probes`."""

    def __init__(self, sampler: Any, g: int, probes: int = 2, max_rounds: int = 8) -> None:
        super().__init__(sampler, g, max_rounds)
        self.probes = probes

    def step(self, world: World, rng: np.random.Generator) -> StepRecord:
        B, k, g = self.sampler.batch_size, self.probes, self.g
        kept: list[int] = []
        kept_inf: list[bool] = []
        drawn: list[np.ndarray] = []
        rollouts = groups = rounds = 0
        overhead = 0.0
        weights = None
        while rounds < self.max_rounds and len(kept) < B:
            t0 = time.perf_counter()
            rows = np.asarray(self.sampler.next_batch(), dtype=np.int64)
            wid = self.sampler.last_weights_id
            overhead += time.perf_counter() - t0
            if weights is None:
                weights = _weights_of(self.sampler)
            p = world.pass_rates()[rows]
            probe = (rng.random((len(rows), k)) < p[:, None]).astype(np.float64)
            go = probe.min(1) != probe.max(1)
            rest = (rng.random((int(go.sum()), g - k)) < p[go][:, None]).astype(np.float64)
            full = np.concatenate([probe[go], rest], axis=1)
            r_rows = np.concatenate([np.repeat(rows[~go], k), np.repeat(rows[go], g)])
            r_rew = np.concatenate([probe[~go].ravel(), full.ravel()])
            gid = np.concatenate([np.repeat(np.flatnonzero(~go), k), np.repeat(np.flatnonzero(go), g)])
            t0 = time.perf_counter()
            self.sampler.learn(r_rows, r_rew, weights_id=wid, group_ids=gid)
            overhead += time.perf_counter() - t0
            rounds += 1
            rollouts += int(r_rew.size)
            groups += len(rows)
            drawn.append(rows)
            kept.extend(rows[go].tolist())
            kept_inf.extend([True] * int(go.sum()))
        kept_a = np.asarray(kept[:B], dtype=np.int64)
        inf_a = np.asarray(kept_inf[:B], dtype=bool)
        # the trainer trains on every informative group (the harmful source's too: that is how it
        # hurts); only the count of informative groups leaves the harmful and the noise source out
        return StepRecord(rollouts, int((inf_a & world.useful(kept_a)).sum()), groups, kept_a[inf_a],
                          np.concatenate(drawn), weights, rounds, overhead)  # fmt: skip


class OracleArm:
    """Knows every current pass rate (and which source does harm): draws the `B` problems most
    likely to give an informative group."""

    def __init__(self, batch: int, g: int) -> None:
        self.batch_size, self.g = batch, g

    def step(self, world: World, rng: np.random.Generator) -> StepRecord:
        p = world.pass_rates()
        score = informative_probability(p, self.g) * world.useful(np.arange(len(p)))
        score = score + 1e-9 * rng.random(len(p))  # ties broken at random
        rows = np.argsort(-score)[: self.batch_size]
        rewards = rng.random((len(rows), self.g)) < p[rows][:, None]
        inf = rewards.min(1) != rewards.max(1)
        return StepRecord(rewards.size, int((inf & world.useful(rows)).sum()), len(rows), rows[inf],
                          rows, None, 1, 0.0)  # fmt: skip


def _weights_of(sampler: Any) -> list[float] | None:
    mixer = getattr(sampler, "mixer", None)
    if mixer is None:
        return None
    w = getattr(mixer, "used_weights", None)
    issued = getattr(mixer, "_issued", {})
    if issued:
        w = list(issued.values())[-1]
    return None if w is None else [round(float(x), 4) for x in w]


_SKETCH_DIRS: dict[int, np.ndarray] = {}


def _sketch(world: World, rows: np.ndarray, rewards: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per-source gradient sketches for a TAC-style bandit, consistent with the world's transfer:
    related sources share a direction; a source's sketch is scaled by its informative groups."""
    n, dim = len(world.names), 32
    key = n
    if key not in _SKETCH_DIRS:
        r = np.random.default_rng(12345)
        base = r.normal(size=(n, dim))
        d = base.copy()
        for k, name in enumerate(world.names):
            for other in RELATED.get(name, ()):
                if other in world.names:
                    d[k] += 0.7 * base[world.names.index(other)]
        _SKETCH_DIRS[key] = d / np.linalg.norm(d, axis=1, keepdims=True)
    dirs = _SKETCH_DIRS[key]
    out = np.full((n, dim), np.nan)
    inf = rewards.min(1) != rewards.max(1)
    for k in range(n):
        m = world.src[rows] == k
        if m.any():
            out[k] = dirs[k] * (inf[m].sum() + 1e-3) + 0.3 * rng.normal(size=dim)
    return out


class SpreadSampler(FrontierSampler):
    """A middle rule between the greedy and the Thompson draw (the seventh development round; not
    in the product): with `draw="greedy"`, inside a source the problems of highest score / (1 +
    n_j)^`spread_power`, n_j the groups of problem j seen so far, so a problem drawn often gives
    way to others the model rates nearly as well."""

    spread_power = 1.0

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._seen = np.zeros(len(self._global))

    def scores(self, indices: Any) -> np.ndarray:
        j = self._slot[np.asarray(indices, dtype=np.int64)]
        return super().scores(indices) / (1.0 + self._seen[j]) ** self.spread_power

    def _observe(self, out: Any, successes: np.ndarray) -> None:
        super()._observe(out, successes)
        np.add.at(self._seen, self._slot[out.problems], (out.attempts > 0).astype(np.float64))


# ---- the arms' makers ---------------------------------------------------------------------------
Maker = Callable[[World, int, int, int, int], Any]


def _arms() -> dict[str, Maker]:
    def sampler(cls: type, **kw: Any) -> Maker:
        def make(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
            return SamplerArm(cls(w.groups, batch, seed=seed, num_steps=steps, **kw), g)

        return make

    def with_mixer(name: str, sketch: bool = False, **kw: Any) -> Maker:
        def make(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
            s = ProblemSampler(w.groups, batch, mixer=name, seed=seed, num_steps=steps,
                               mixer_kwargs=kw)  # fmt: skip
            return SamplerArm(s, g, sketch=sketch)

        return make

    def with_prior(name: str) -> Maker:
        def make(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
            s = ProblemSampler(w.groups, batch, mixer=name, seed=seed, num_steps=steps,
                               **w.prior_kwargs())  # fmt: skip
            return SamplerArm(s, g)

        return make

    def static(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
        sizes = [len(v) for v in w.groups.values()]
        mixer = Static(len(sizes), weights=sizes, names=list(w.groups), seed=seed)
        return SamplerArm(ProblemSampler(w.groups, batch, mixer=mixer, seed=seed), g)

    def frontier(mixer: str | None = "uniform", sampler_kw: dict | None = None, **kw: Any) -> Maker:
        def make(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
            s = FrontierSampler(w.groups, batch, mixer=mixer, seed=seed, num_steps=steps,
                                mixer_kwargs=kw, **w.prior_kwargs(), **(sampler_kw or {}))  # fmt: skip
            return SamplerArm(s, g)

        return make

    def mopps_prior(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
        s = BetaPosteriorSampler(w.groups, batch, seed=seed, num_steps=steps, **w.prior_kwargs())
        return SamplerArm(s, g)

    def beta_global(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
        """The issue's reference: a per-problem Beta posterior seeded from the difficulty,
        Thompson draws over the whole pool, no source mixer."""
        s = BetaPosteriorSampler({"all": np.arange(len(w.problem_id))}, batch, seed=seed,
                                 num_steps=steps, **w.prior_kwargs())  # fmt: skip
        return SamplerArm(s, g)

    def frontier_global(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
        """The frontier model over the whole pool as one source (no source mixer)."""
        s = FrontierSampler({"all": np.arange(len(w.problem_id))}, batch, seed=seed,
                            num_steps=steps, mixer="uniform", **w.prior_kwargs())  # fmt: skip
        return SamplerArm(s, g)

    def stack(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
        return SamplerArm(
            FrontierSampler.from_dataset(w.table(), batch, seed=seed, num_steps=steps), g
        )

    def stack_greedy(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
        """The default stack with the greedy draw inside a source (`draw="greedy"`)."""
        return SamplerArm(FrontierSampler.from_dataset(w.table(), batch, seed=seed, num_steps=steps,
                                                       draw="greedy"), g)  # fmt: skip

    def stack_spread(power: float) -> Maker:
        """The default stack with `SpreadSampler`'s draw (greedy by score / (1 + n)^power)."""

        def make(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
            s = SpreadSampler.from_dataset(w.table(), batch, seed=seed, num_steps=steps, draw="greedy")
            s.spread_power = power
            return SamplerArm(s, g)

        return make

    def stack_old(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
        """The default stack before issue 52: ACODM rewarded by `contribution` under the model."""
        s = FrontierSampler.from_dataset(w.table(), batch, seed=seed, num_steps=steps,
                                         mixer="acodm", mixer_kwargs={"reward": "contribution"})  # fmt: skip
        return SamplerArm(s, g)

    def speed(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
        return SpeedArm(ProblemSampler(w.groups, batch, seed=seed, num_steps=steps), g)

    def oracle(w: World, batch: int, g: int, steps: int, seed: int) -> Any:
        return OracleArm(batch, g)

    return {
        # the baselines, as published (source mixers draw uniformly inside a source)
        "uniform": sampler(ProblemSampler),
        "static": static,
        "dump": with_mixer("dump"),
        "tac": with_mixer("transfer-bandit", sketch=True),
        "acodm": with_mixer("acodm"),
        "frontier": frontier("uniform"),  # the problem model alone, under uniform source weights
        "mopps": sampler(BetaPosteriorSampler),
        "dapo": sampler(DynamicSampling),
        "greso": sampler(GRESO),
        "speed": speed,
        # the default stack: FrontierSampler.from_dataset(train, batch_size), nothing else
        "stack": stack,
        "stack-greedy": stack_greedy,
        # the seventh round's middle rules (benchmarks/pages/mixing-generated.md), not in mixer/
        "stack-spread": stack_spread(1.0),
        "stack-spread-sqrt": stack_spread(0.5),
        # references and ablations
        "oracle": oracle,
        "mopps+prior": mopps_prior,
        "beta-prior-global": beta_global,
        "frontier-global": frontier_global,
        "frontier+dump": frontier("dump"),
        # issue 52: the model's allocation alone (the default with its correction off), the
        # issue's reference (`source_prior()` recomputed each step), the default before it
        "frontier+model": frontier("model"),
        "frontier+prior-recomputed": frontier("model", optimism=0.0, group_size=8),
        "stack-old": stack_old,
        "frontier+acodm-advantage": frontier("acodm"),
        "dump+prior": with_prior("dump"),
        "acodm+prior": with_prior("acodm"),
    }


#: The arms a part runs (the references and ablations with them).
HEADLINE = ("uniform", "static", "dump", "tac", "acodm", "frontier", "mopps", "dapo", "greso",
            "speed", "stack", "oracle", "mopps+prior", "beta-prior-global", "frontier-global",
            "frontier+dump", "frontier+acodm-advantage", "dump+prior", "acodm+prior")  # fmt: skip


ARMS = _arms()


# ---- one run ----------------------------------------------------------------------------------
def run(arm: str, scenario: str, seed: int, steps: int, batch: int, g: int) -> dict[str, Any]:
    """One arm on one scenario and seed; a generated scenario brings its own `batch` and `g`."""
    world = make_world(scenario, steps, seed)
    if isinstance(world, GenWorld):
        batch, g = world.batch, world.group
    maker = ARMS[arm]
    try:
        a = maker(world, batch, g, steps, seed)
    except TypeError as e:  # an arm the code under test cannot build (an older codemix)
        return {"arm": arm, "scenario": scenario, "seed": seed, "skipped": str(e)}
    key = SCENARIOS.index(scenario) if scenario in SCENARIOS else 100 + int(scenario[1:])
    rng = np.random.default_rng([seed, 11, key])
    world.eval_rng = np.random.default_rng([seed, 13, key])  # apart: rewards stay as they were
    recs: list[StepRecord] = []
    held0 = world.held_out() if isinstance(world, GenWorld) else None
    t0 = time.perf_counter()
    for _ in range(steps):
        r = a.step(world, rng)
        recs.append(r)
        world.advance(r.trained)
    wall = time.perf_counter() - t0
    roll = np.array([r.rollouts for r in recs])
    inf = np.array([r.informative for r in recs])
    drawn = np.concatenate([r.drawn for r in recs])
    n = len(world.problem_id)
    per_src = np.bincount(world.src[drawn], minlength=len(world.names))
    first = min(10, steps)
    out = {
        "arm": arm,
        "scenario": scenario,
        "seed": seed,
        "steps": steps,
        "batch": batch,
        "group": g,
        "rollouts": int(roll.sum()),
        "informative": int(inf.sum()),
        "inf_per_rollout": float(inf.sum() / roll.sum()),
        "inf_per_rollout_first10": float(inf[:first].sum() / roll[:first].sum()),
        "inf_per_1000": float(1000 * inf.sum() / roll.sum()),
        "distinct_problems": int(len(np.unique(drawn))),
        "draws_per_problem": float(len(drawn) / n),
        "draws_by_source": dict(zip(world.names, per_src.tolist(), strict=True)),
        "mean_pass_rate_end": float(world.pass_rates().mean()),
        # the target the evaluation measures (without its noise): the useful problems' pass rate
        "target_end": float(world.pass_rates()[world.useful(np.arange(n))].mean()),
        "rounds": float(np.mean([r.rounds for r in recs])),
        "overhead_ms_per_step": float(1000 * sum(r.overhead_s for r in recs) / steps),
        "wall_s": round(wall, 2),
        "per_step": {
            "rollouts": roll.tolist(),
            "informative": inf.tolist(),
            "weights": [r.weights for r in recs] if recs[0].weights is not None else None,
        },
    }
    if isinstance(world, GenWorld):
        # the held-out target (`GenWorld.held_out`): its gain over the run; and how concentrated
        # the draws are, as B3 v2 reads them (benchmarks/code_rl/paired.py): the share of the
        # draws on the most-drawn tenth of the pool
        out["held_out_gain"] = world.held_out() - float(held0)
        out["carry_power"] = world.carry_power
        per = np.sort(np.bincount(drawn, minlength=n))[::-1]
        out["top_tenth_share"] = float(per[: max(1, n // 10)].sum() / per.sum())
    if world.harmful is not None:
        h = world.names.index(world.harmful)
        out["harm_share"] = float((world.src[drawn] == h).mean())
    if recs[0].weights is not None:
        out["settle_frac"] = settle_fraction(np.array([r.weights for r in recs]))
    return out


def settle_fraction(w: np.ndarray) -> float:
    """The share of the run after which the weights stay settled (`SETTLE_TOL`)."""
    steps = len(w)
    final = w[-max(1, steps // 10) :].mean(0)
    k = min(10, steps)
    ma = np.array([w[max(0, t - k + 1) : t + 1].mean(0) for t in range(steps)])
    off = np.abs(ma - final).sum(1) > SETTLE_TOL
    last = int(np.flatnonzero(off).max()) + 1 if off.any() else 0
    return last / steps


def _for_the_record(r: dict[str, Any]) -> dict[str, Any]:
    """A run as the results file keeps it: its numbers, and the stack's weights every 10 steps
    (the per-step arrays of every run would make the file megabytes)."""
    out = {k: v for k, v in r.items() if k != "per_step"}
    w = r["per_step"]["weights"]
    if r["arm"] == "stack" and w is not None:
        out["weights_every_10"] = w[::10]
    return out


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per scenario and arm: mean informative groups per rollout and the share of the
    uniform-to-oracle gap closed (per seed, then mean and sd over seeds)."""
    by: dict[tuple[str, str, int], dict] = {(r["scenario"], r["arm"], r["seed"]): r for r in runs}
    out: dict[str, Any] = {}
    for sc in sorted({r["scenario"] for r in runs}):
        arms = sorted({r["arm"] for r in runs if r["scenario"] == sc})
        seeds = sorted({r["seed"] for r in runs if r["scenario"] == sc})
        table = {}
        for arm in arms:
            vals, gaps, gaps10 = [], [], []
            for s in seeds:
                r, u, o = by.get((sc, arm, s)), by.get((sc, "uniform", s)), by.get((sc, "oracle", s))
                if r is None:
                    continue
                vals.append(r["inf_per_rollout"])
                if u is not None and o is not None:
                    gaps.append((r["inf_per_rollout"] - u["inf_per_rollout"])
                                / (o["inf_per_rollout"] - u["inf_per_rollout"]))  # fmt: skip
                    gaps10.append(
                        (r["inf_per_rollout_first10"] - u["inf_per_rollout_first10"])
                        / (o["inf_per_rollout_first10"] - u["inf_per_rollout_first10"])
                    )
            rs = [by[(sc, arm, s)] for s in seeds if (sc, arm, s) in by]
            table[arm] = {
                "seeds": len(vals),
                "inf_per_rollout": _ms(vals),
                "gap_closed": _ms(gaps),
                "gap_closed_first10": _ms(gaps10),
                "distinct_problems": _ms([r["distinct_problems"] for r in rs]),
                "rollouts": _ms([r["rollouts"] for r in rs]),
                "overhead_ms_per_step": _ms([r["overhead_ms_per_step"] for r in rs]),
                **({"harm_share": _ms([r["harm_share"] for r in rs])} if "harm_share" in rs[0] else {}),
                **({"settle_frac": _ms([r["settle_frac"] for r in rs])} if "settle_frac" in rs[0] else {}),
            }
        out[sc] = table
    return out


def family(runs: list[dict[str, Any]], versus: tuple[str, ...] = ("frontier+dump", "frontier+model"),
           arm: str = "stack") -> dict[str, Any]:
    """The registered reading of a block of generated scenarios (benchmarks/pages/
    mixing-generated.md): per scenario the 5-seed mean gap closed of `arm`; their mean and worst;
    against each arm of `versus`, how many scenarios `arm` is at least as good (paired mean
    difference >= -2 standard errors; strictly: >= 0); the scenarios below uniform; and the
    correction's effect split by whether a contradicting-tests source is there."""
    by = {(r["scenario"], r["arm"], r["seed"]): r for r in runs}
    scen = sorted({r["scenario"] for r in runs if is_generated(r["scenario"])}, key=lambda x: int(x[1:]))

    def gaps(sc: str, a: str, key: str = "inf_per_rollout") -> np.ndarray:
        out = []
        for s in sorted({r["seed"] for r in runs if r["scenario"] == sc}):
            r, u, o = by.get((sc, a, s)), by.get((sc, "uniform", s)), by.get((sc, "oracle", s))
            if r is None or u is None or o is None:
                continue
            out.append((r[key] - u[key]) / (o[key] - u[key]))
        return np.asarray(out)

    per: dict[str, Any] = {}
    for sc in scen:
        g, g10 = gaps(sc, arm), gaps(sc, arm, "inf_per_rollout_first10")
        if not g.size:
            continue
        row: dict[str, Any] = {"gap": float(g.mean()), "gap_first10": float(g10.mean())}
        u = [by[(sc, "uniform", s)]["inf_per_rollout"] for s in range(10) if (sc, "uniform", s) in by]
        a = [by[(sc, arm, s)]["inf_per_rollout"] for s in range(10) if (sc, arm, s) in by]
        row["below_uniform"] = bool(np.mean(a) < np.mean(u))
        row["harmful"] = any(by[k].get("harm_share") is not None for k in by if k[0] == sc)
        spec = getattr(make_world(sc, 1, 0), "spec", {})
        row["harm"] = spec.get("harm") if row["harmful"] else None  # "contradict" or "hacks"
        row["noise"] = bool(spec.get("noise"))
        for v in versus:
            d = g - gaps(sc, v) if gaps(sc, v).size == g.size else np.zeros(0)
            if d.size:
                se = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else 0.0
                row[f"vs {v}"] = [round(float(d.mean()), 4), round(se, 4)]
            seeds = [s for s in range(10) if (sc, arm, s) in by and (sc, v, s) in by]
            if seeds and all("target_end" in by[(sc, a, s)] for s in seeds for a in (arm, v)):
                # the target at the end (the useful problems' pass rate), paired by run seed
                t = [by[(sc, arm, s)]["target_end"] - by[(sc, v, s)]["target_end"] for s in seeds]
                row[f"target vs {v}"] = round(float(np.mean(t)), 5)
        per[sc] = row
    if not per:
        return {}
    gs = np.array([r["gap"] for r in per.values()])
    g10 = np.array([r["gap_first10"] for r in per.values()])
    out: dict[str, Any] = {
        "scenarios": len(per),
        "gap": [round(float(gs.mean()), 4), round(float(gs.min()), 4), min(per, key=lambda k: per[k]["gap"])],
        "gap_first10": [round(float(g10.mean()), 4), round(float(g10.min()), 4),
                        min(per, key=lambda k: per[k]["gap_first10"])],
        "below_uniform": [k for k, r in per.items() if r["below_uniform"]],
    }  # fmt: skip
    for v in versus:
        rows = [(k, r[f"vs {v}"]) for k, r in per.items() if f"vs {v}" in r]
        if not rows:
            continue
        out[f"as good as {v}"] = sum(m >= -2 * se for _, (m, se) in rows)
        out[f"strictly as good as {v}"] = sum(m >= 0 for _, (m, se) in rows)
        out[f"loses to {v}"] = [k for k, (m, se) in rows if m < -2 * se]
        kinds = {
            "harmful": lambda r: r["harmful"],
            "no harmful": lambda r: not r["harmful"],
            "contradicting": lambda r: r["harm"] == "contradict",
            "learns and hurts": lambda r: r["harm"] == "hacks",
            "learns and hurts, no noise": lambda r: r["harm"] == "hacks" and not r["noise"],
            "neither harmful nor noise": lambda r: not r["harmful"] and not r["noise"],
        }
        for label, sel in kinds.items():
            d = np.array([m for k, (m, _) in rows if sel(per[k])])
            if d.size:
                se = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else 0.0
                out[f"vs {v}, {label}"] = [round(float(d.mean()), 4), round(se, 4), int(d.size)]
            tt = np.array([per[k][f"target vs {v}"] for k, _ in rows
                          if sel(per[k]) and f"target vs {v}" in per[k]])  # fmt: skip
            if tt.size > 1:
                se = float(tt.std(ddof=1) / np.sqrt(tt.size))
                out[f"target vs {v}, {label}"] = [round(float(tt.mean()), 5), round(se, 5), int(tt.size)]
    out["per_scenario"] = per
    return out


def _ms(x: list[float]) -> list[float] | None:
    if not x:
        return None
    a = np.asarray(x, dtype=np.float64)
    return [round(float(a.mean()), 4), round(float(a.std(ddof=1)) if len(a) > 1 else 0.0, 4)]


def print_table(summary: dict[str, Any]) -> None:
    for sc, table in summary.items():
        print(f"\n{sc}: informative groups per rollout, share of the uniform-to-oracle gap closed")
        print(f"{'arm':<24}{'inf/rollout':>12}{'gap':>14}{'gap, 10 steps':>16}{'distinct':>10}"
              f"{'ms/step':>9}{'settle':>8}{'harm':>7}")  # fmt: skip
        for arm, row in sorted(table.items(), key=lambda kv: -kv[1]["inf_per_rollout"][0]):
            gap = row["gap_closed"] or [float("nan"), 0]
            g10 = row["gap_closed_first10"] or [float("nan"), 0]
            settle = row.get("settle_frac") or [float("nan")]
            harm = row.get("harm_share") or [float("nan")]
            print(f"{arm:<24}{row['inf_per_rollout'][0]:>12.4f}{gap[0]:>8.2f}±{gap[1]:<5.2f}"
                  f"{g10[0]:>10.2f}±{g10[1]:<5.2f}{row['distinct_problems'][0]:>10.0f}"
                  f"{row['overhead_ms_per_step'][0]:>9.2f}{settle[0]:>8.2f}{harm[0]:>7.3f}")  # fmt: skip


def main() -> None:
    global CARRY_POWER
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=sorted(PARTS), help="a registered set of seeds")
    ap.add_argument("--seeds", help="comma-separated seeds (instead of --part)")
    ap.add_argument("--arms", default=",".join(HEADLINE))
    ap.add_argument("--scenarios", default=",".join(SCENARIOS),
                    help="named scenarios and generated ones (g<scenario seed>)")
    ap.add_argument("--generated", help="a range of generated scenario seeds, e.g. 1000-1039 "
                    "(instead of --scenarios); h1000-1039: the second family (a source that "
                    "learns and hurts)")  # fmt: skip
    ap.add_argument("--carry-power", type=float, default=CARRY_POWER,
                    help="the c<seed> scenarios' cost for concentration (GenWorld.carry_power)")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=16, help="prompts per step")
    ap.add_argument("--group", type=int, default=8, help="completions per prompt")
    ap.add_argument("--out", type=Path, help="results file (default by part)")
    ap.add_argument("--code", type=Path, help="a checkout of codemix to measure (default: this one)")
    ap.add_argument("--merge", nargs="+", type=Path, help="results files of one block run in parts: "
                    "read their runs together (summary and family) into --out, run nothing")  # fmt: skip
    args = ap.parse_args()
    CARRY_POWER = args.carry_power
    if args.merge:
        merged = [json.loads(f.read_text()) for f in args.merge]
        runs0 = [r for m in merged for r in m["runs"]]
        fam0 = family(runs0)
        rec0 = {"command": " ".join(sys.argv[1:]), "parts": [m["command"] for m in merged],
                "load": [m["load"] for m in merged], "wall_s": [m["wall_s"] for m in merged],
                "summary": summarise(runs0), **({"family": fam0} if fam0 else {}), "runs": runs0}  # fmt: skip
        if fam0:
            print(json.dumps({k: v for k, v in fam0.items() if k != "per_scenario"}, indent=1))
        out0 = args.out or RESULTS / "quick" / "sampling_replay_merged.json"
        out0.parent.mkdir(parents=True, exist_ok=True)
        out0.write_text(json.dumps(rec0, indent=0))
        print(f"{len(runs0)} runs -> {out0}")
        return
    if args.code is not None:  # re-run this script against another checkout's packages
        import subprocess

        argv = [a for i, a in enumerate(sys.argv[1:]) if a != "--code" and sys.argv[i] != "--code"]
        env = dict(os.environ, PYTHONPATH=str(args.code.resolve()), CODEMIX_REPLAY_CODE="1")
        raise SystemExit(subprocess.call([sys.executable, __file__, *argv], env=env))
    seeds = PARTS[args.part] if args.part else [int(s) for s in (args.seeds or "0").split(",")]
    arms = [a for a in args.arms.split(",") if a]
    for a in arms:
        if a not in ARMS:
            raise SystemExit(f"unknown arm {a!r}; choose from {', '.join(ARMS)}")
    needed = sorted(set(arms) | {"uniform", "oracle"}, key=list(ARMS).index)
    scenarios = [s for s in args.scenarios.split(",") if s]
    if args.generated:
        # h1000-1039: the second family; c0-39: the second with the cost for concentration
        fam = args.generated[:1] if args.generated[:1] in ("h", "c") else "g"
        lo, _, hi = args.generated.lstrip("ghc").partition("-")
        scenarios = [f"{fam}{k}" for k in range(int(lo), int(hi or lo) + 1)]
    elif args.part in GEN_PARTS:
        scenarios = [f"g{k}" for k in GEN_PARTS[args.part]]
    # an ad hoc run (no --part) goes to the ignored results/quick/, not beside the registered parts
    named = f"sampling_replay_{args.part}.json" if args.part else "quick/sampling_replay_adhoc.json"
    out = args.out or RESULTS / named
    out.parent.mkdir(parents=True, exist_ok=True)
    # each finished scenario is appended to <out>.partial.jsonl; a rerun of the same command
    # takes the scenarios found there and runs only the others (resume after an interruption)
    partial = out.with_name(out.name + ".partial.jsonl")
    key = {"seeds": seeds, "arms": needed, "steps": args.steps, "batch": args.batch,
           "group": args.group}  # fmt: skip
    if any(sc[:1] == "c" for sc in scenarios):
        key["carry_power"] = CARRY_POWER
    done: dict[str, list[dict[str, Any]]] = {}
    if partial.exists():
        for line in partial.read_text().splitlines():
            rec0 = json.loads(line)
            if rec0["key"] == key:
                done[rec0["scenario"]] = rec0["runs"]
        if done:
            print(f"resuming: {len(done)} scenarios from {partial}")
    runs: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    skipped = set()
    for sc in scenarios:
        if sc in done:
            runs += done[sc]
            continue
        mine = []
        for seed in seeds:
            for arm in needed:
                r = run(arm, sc, seed, args.steps, args.batch, args.group)
                if "skipped" in r:
                    skipped.add(f"{arm}: {r['skipped']}")
                else:
                    mine.append(_for_the_record(r))
        runs += mine
        with partial.open("a") as f:
            f.write(json.dumps({"key": key, "scenario": sc, "runs": mine}) + "\n")
    for line in sorted(skipped):
        print(f"skipped {line}")
    summary = summarise(runs)
    fam = family(runs)
    if fam:
        print(json.dumps({k: v for k, v in fam.items() if k != "per_scenario"}, indent=1))
    else:
        print_table(summary)
    rec = {
        "command": " ".join(sys.argv[1:]),
        "seeds": seeds,
        "steps": args.steps,
        "batch": args.batch,
        "group": args.group,
        **({"carry_power": CARRY_POWER} if "carry_power" in key else {}),
        "load": os.getloadavg(),
        "wall_s": round(time.perf_counter() - t0, 1),
        "summary": summary,
        **({"family": fam} if fam else {}),
        "runs": runs,
    }
    out.write_text(json.dumps(rec, indent=0))
    partial.unlink(missing_ok=True)
    print(f"\n{len(runs)} runs in {rec['wall_s']} s -> {out}")


if __name__ == "__main__":
    main()
