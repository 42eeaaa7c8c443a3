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
PARTS = {"dev": [0, 1, 2, 3, 4], "fresh": [100, 101, 102, 103, 104]}
SCENARIOS = ("b3", "learning", "revival", "contradict")
DEAD_LOGIT = -6.0  # a problem measured at 0 of 16 (p = 0.0025)
SOLVED_LOGIT = 6.0
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


# ---- arms -------------------------------------------------------------------------------------
@dataclass
class StepRecord:
    rollouts: int  # completions generated this step (probes and discarded groups included)
    informative: int  # groups trained with a nonzero advantage (the harmful source's excluded)
    groups: int  # groups generated
    trained: np.ndarray  # problems of the informative groups trained
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
        extra = {"grad_sketch": _sketch(world, rows, rewards, rng)} if self.sketch else {}
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
        inf_a = np.asarray(kept_inf[:B], dtype=bool) & world.useful(kept_a)
        return StepRecord(rollouts, int(inf_a.sum()), groups, kept_a[inf_a],
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
        inf_a = np.asarray(kept_inf[:B], dtype=bool) & world.useful(kept_a)
        return StepRecord(rollouts, int(inf_a.sum()), groups, kept_a[inf_a],
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
        inf = (rewards.min(1) != rewards.max(1)) & world.useful(rows)
        return StepRecord(rewards.size, int(inf.sum()), len(rows), rows[inf], rows, None, 1, 0.0)


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
        # references and ablations
        "oracle": oracle,
        "mopps+prior": mopps_prior,
        "beta-prior-global": beta_global,
        "frontier-global": frontier_global,
        "frontier+dump": frontier("dump"),
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
    world = load_world(scenario, steps, seed)
    maker = ARMS[arm]
    try:
        a = maker(world, batch, g, steps, seed)
    except TypeError as e:  # an arm the code under test cannot build (an older codemix)
        return {"arm": arm, "scenario": scenario, "seed": seed, "skipped": str(e)}
    rng = np.random.default_rng([seed, 11, SCENARIOS.index(scenario)])
    recs: list[StepRecord] = []
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
        "rounds": float(np.mean([r.rounds for r in recs])),
        "overhead_ms_per_step": float(1000 * sum(r.overhead_s for r in recs) / steps),
        "wall_s": round(wall, 2),
        "per_step": {
            "rollouts": roll.tolist(),
            "informative": inf.tolist(),
            "weights": [r.weights for r in recs] if recs[0].weights is not None else None,
        },
    }
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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=sorted(PARTS), help="a registered set of seeds")
    ap.add_argument("--seeds", help="comma-separated seeds (instead of --part)")
    ap.add_argument("--arms", default=",".join(HEADLINE))
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=16, help="prompts per step")
    ap.add_argument("--group", type=int, default=8, help="completions per prompt")
    ap.add_argument("--out", type=Path, help="results file (default by part)")
    ap.add_argument("--code", type=Path, help="a checkout of codemix to measure (default: this one)")
    args = ap.parse_args()
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
    runs = []
    t0 = time.perf_counter()
    skipped = set()
    for sc in scenarios:
        for seed in seeds:
            for arm in needed:
                r = run(arm, sc, seed, args.steps, args.batch, args.group)
                if "skipped" in r:
                    skipped.add(f"{arm}: {r['skipped']}")
                else:
                    runs.append(r)
    for line in sorted(skipped):
        print(f"skipped {line}")
    summary = summarise(runs)
    print_table(summary)
    # an ad hoc run (no --part) goes to the ignored results/quick/, not beside the registered parts
    named = f"sampling_replay_{args.part}.json" if args.part else "quick/sampling_replay_adhoc.json"
    out = args.out or RESULTS / named
    rec = {
        "command": " ".join(sys.argv[1:]),
        "seeds": seeds,
        "steps": args.steps,
        "batch": args.batch,
        "group": args.group,
        "load": os.getloadavg(),
        "wall_s": round(time.perf_counter() - t0, 1),
        "summary": summary,
        "runs": [_for_the_record(r) for r in runs],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rec, indent=0))
    print(f"\n{len(runs)} runs in {rec['wall_s']} s -> {out}")


if __name__ == "__main__":
    main()
