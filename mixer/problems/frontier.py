"""FrontierSampler: inside each source, draw the problems the policy can learn from now, predicted
before their first rollout from the curated difficulty (`PassRateModel`).

The source mixer (any `Mixer`) says how many problems come from each source; inside a source,
problem j is drawn with probability proportional to its score (by default E[p_j (1 - p_j)], the
expected reward variance, zero for problems surely solved or surely failed), mixed with a uniform
share `explore` so that problems believed solved or hopeless are re-probed as the policy changes.
Draws inside one batch are without replacement while the source has enough problems.

With a `scorer` (`set_scorer`), each draw is two-staged. A share `explore` of the batch is drawn
uniformly from the source; for the rest, `candidates` times as many problems are drawn as above,
the scorer gives each (and the uniform picks) a signal of the policy *now* that costs no rollout
(e.g. the policy's mean log-likelihood of the problem's reference solution, one forward pass), the
model calibrates that signal against the rewards it sees (a fitted piecewise-linear curve, see
`PassRateModel`), and that part of the batch is drawn from the candidates by their updated score.
The ledger counts the problems scored (`scored_prompts`) beside the rollouts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mixer.policies.base import Mixer
from mixer.problems.base import PRIOR_GROUP_SIZE, GroupOutcome, ProblemSampler
from mixer.problems.pass_rate import PassRateModel, PassRateSettings
from mixer.problems.prior import expected_informative
from mixer.settings import resolve

__all__ = ["DRAWS", "FrontierSampler", "FrontierSettings", "SCORES"]

SCORES = ("learnability", "learnability-low", "band")
DRAWS = ("greedy", "thompson", "proportional")
#: The source mixer when none is given: the problem model's allocation each step, with ACODM's
#: learnt correction on top (`mixer.policies.model`; docs/frontier.md, "The default stack").
DEFAULT_MIXER: str = "acodm-residual"
DEFAULT_MIXER_KWARGS: dict[str, Any] = {}
#: How many batches' worth of the problems the prior expects most learnable set the source
#: mixer's first weights (see `FrontierSampler.source_prior`).
PRIOR_DEPTH = 2
#: The least `FrontierSampler.learning_factor` gives a source (its problems are still counted a
#: little, so the check can be revised as its evidence fades).
LEARNING_FLOOR = 0.05


@dataclass(frozen=True)
class FrontierSettings:
    """`FrontierSampler`'s knobs, validated once (their meaning: the `FrontierSampler` docstring).
    `model` may be given as a mapping of `PassRateSettings` fields."""

    score: str = "learnability"
    draw: str = "thompson"
    band: tuple[float, float] = (0.2, 0.8)
    explore: float = 0.05
    power: float = 1.0
    candidates: float = 4.0
    model: PassRateSettings = field(default_factory=PassRateSettings)
    learning: bool = True
    learning_z: float = 1.0
    learning_min: float = 0.2
    learning_decay: float = 0.95
    learning_prior: float = 20.0

    def __post_init__(self) -> None:
        if self.score not in SCORES:
            raise ValueError(f"score must be one of {SCORES}, got {self.score!r}")
        if self.draw not in DRAWS:
            raise ValueError(f"draw must be one of {DRAWS}, got {self.draw!r}")
        if not 0.0 <= self.explore <= 1.0:
            raise ValueError(f"explore must be in [0, 1], got {self.explore}")
        if not self.power > 0:
            raise ValueError(f"power must be > 0, got {self.power}")
        if not self.candidates >= 1:
            raise ValueError(f"candidates must be >= 1, got {self.candidates}")
        lo, hi = (float(x) for x in self.band)
        if not 0.0 <= lo < hi <= 1.0:
            raise ValueError(f"band must be (lo, hi) with 0 <= lo < hi <= 1, got {self.band}")
        if not (self.learning_z >= 0 and self.learning_min > 0 and 0 < self.learning_decay <= 1):
            raise ValueError("need learning_z >= 0, learning_min > 0 and 0 < learning_decay <= 1")
        if not self.learning_prior > 0:
            raise ValueError(f"learning_prior must be > 0, got {self.learning_prior}")
        if isinstance(self.model, Mapping):
            object.__setattr__(self, "model", PassRateSettings(**self.model))


class FrontierSampler(ProblemSampler):
    """A `ProblemSampler` that draws by predicted learnability (see the module docstring).

    Args:
        groups: source name -> global indices of its problems (as `MixedSampler`).
        batch_size: problems per batch.
        mixer: the source mixer (a `Mixer` or a policy name); None: `DEFAULT_MIXER` with
            `DEFAULT_MIXER_KWARGS` (ACODM, rewarded by each source's share of the informative
            groups), which starts from the prior's allocation.
        difficulty, difficulty_std: per global index (arrays as long as the dataset), on codemix's
            [0, 1] scale (`difficulty_scale="unit"`, the shards' columns) or as item-response
            logits (`"logit"`); NaN where unknown. None: no prior (each problem starts at its
            source's mean, and learns from its own attempts).
        score: "learnability" (E[p (1 - p)]), "learnability-low" (E[p (1 - p)^2]: leans to the
            problems still mostly failed) or "band" (posterior probability that p is in `band`).
        draw: "thompson" (default): one pass rate is sampled from each problem's posterior and
            the problems whose samples score best are taken (closest to p = 1/2 for
            "learnability", 1/3 for "learnability-low", inside `band` for "band"), so a problem
            the model is sure of is drawn or left for sure and an uncertain one now and then;
            "greedy": the problems with the highest score (the posterior's expectation: E[p (1 -
            p)] for "learnability"), the ones the source's weight was counted for
            (`model_allocation`): better on the generated replay, worse in B3 v2's real GRPO loop
            (it trains on fewer problems: benchmarks/pages/b3v2.md section 22);
            "proportional": problems drawn with probability proportional to score^`power`.
        explore: share of each source's draws made uniformly.
        power: with `draw="proportional"`, scores are raised to this power before normalising.
        never_solved: bool per global index, problems no ranking model solved (their difficulty is
            a bound; `mixer.problems.prior`); `from_dataset` reads a `never_solved` column.
        scorer: a callable from global indices (an int array) to one float per problem, higher for
            problems the policy is more likely to pass now (NaN: unknown); see `set_scorer`.
        candidates: with a scorer, problems scored per problem drawn (at least 1).
        model: the `PassRateSettings` of the pass-rate model (a mapping of its fields works too).
        learning: the learning check of the model's allocation (`learning_factor`): a source
            whose problems do not pass more often after being trained on is counted as less
            learnable; `learning_z`, `learning_min`, `learning_decay` and `learning_prior` are
            its knobs (see `learning_factor`). False: off.
    `score`, `draw`, `band`, `explore`, `power`, `candidates`, `model` and the `learning` knobs
    are the fields of one
    `FrontierSettings` (`settings=`), or given as keywords. Other arguments are
    `ProblemSampler`'s. `exhaust` is always "recycle": problems are redrawn.
    """

    #: `from_dataset`: a named difficulty column must exist (None: no prior); with nothing else
    #: given this is the recommended RL sampler (docs/frontier.md)
    prior_columns_required: ClassVar[bool] = True

    def __init__(
        self,
        groups: Mapping[str, Sequence[int] | np.ndarray],
        batch_size: int,
        difficulty: Sequence[float] | np.ndarray | None = None,
        difficulty_std: Sequence[float] | np.ndarray | None = None,
        mixer: Mixer | str | None = None,
        seed: int = 0,
        num_steps: int | None = None,
        mixer_kwargs: Mapping[str, Any] | None = None,
        reward_range: tuple[float, float] = (0.0, 1.0),
        difficulty_scale: str = "unit",
        exhaust: str = "recycle",
        scorer: Callable[[np.ndarray], Sequence[float] | np.ndarray] | None = None,
        never_solved: Sequence[bool] | np.ndarray | None = None,
        settings: FrontierSettings | None = None,
        **kw: Any,
    ) -> None:
        if exhaust != "recycle":
            raise ValueError(
                "FrontierSampler redraws problems by design; exhaust must be 'recycle'"
            )
        self.settings = st = resolve(FrontierSettings, settings, kw)
        if kw:
            raise TypeError(f"FrontierSampler got unexpected keywords: {', '.join(kw)}")
        if mixer is None:  # the default stack: ACODM allocates across sources
            mixer, mixer_kwargs = DEFAULT_MIXER, {**DEFAULT_MIXER_KWARGS, **(mixer_kwargs or {})}
        super().__init__(
            groups,
            batch_size,
            mixer=mixer,
            seed=seed,
            num_steps=num_steps,
            mixer_kwargs=mixer_kwargs,
            reward_range=reward_range,
            difficulty_scale=difficulty_scale,
        )
        self.score, self.draw, self.band = st.score, st.draw, (float(st.band[0]), float(st.band[1]))
        self.explore, self.power = float(st.explore), float(st.power)
        self.candidates = float(st.candidates)
        self.scorer: Callable[[np.ndarray], Sequence[float] | np.ndarray] | None = None
        # slot k of the model = k-th problem in source order; _slot maps a global index to it
        self._global = np.concatenate(self.groups)
        self._slot = np.full(len(self._source_lookup), -1, dtype=np.int64)
        self._slot[self._global] = np.arange(len(self._global))
        self._slots = []
        start = 0
        for g in self.groups:
            self._slots.append(np.arange(start, start + len(g)))
            start += len(g)
        self._group_size = PRIOR_GROUP_SIZE  # the completions per group seen last
        # the learning check: whether each problem's last group was informative (it was trained
        # on since), and per source the surprise of its next groups and their information
        self._trained = np.zeros(len(self._global), dtype=bool)
        self._surprise = np.zeros(len(self.names))
        self._info = np.zeros(len(self.names))
        follow = getattr(self.mixer, "follow", None)
        if callable(follow):  # a policy that starts each step from the model's allocation
            follow(self.model_allocation)
        self.set_prior(difficulty, difficulty_std, never_solved)
        if scorer is not None:
            self.set_scorer(scorer)

    # ---- the prior ---------------------------------------------------------------------------
    def _prior_kwargs(self) -> dict[str, Any]:
        # the policy's own spread around the curated line is the model's `tau`: counted once, here
        return {"tau": 0.0}

    def _prior_changed(self) -> None:
        self._new_model(signal=self.scorer is not None)

    def _new_model(self, signal: bool) -> None:
        """A fresh `PassRateModel` over `self.prior` (the curated logit difficulty is -mean)."""
        src = self._source_lookup[self._global]
        b = s = ns = None
        if self.prior is not None:
            p = self.prior.take(self._global)
            b, s, ns = -p.mean, p.std, p.never_solved
        self.model = PassRateModel(
            src, len(self.names), b, s, signal=signal, never_solved=ns, settings=self.settings.model
        )

    def source_prior(self) -> tuple[np.ndarray, np.ndarray] | None:
        """From the model before any rollout: per source, the expected chance of an informative
        group of its problems among the `PRIOR_DEPTH` batches' worth the model expects most
        learnable in the whole pool (the learnability; a source with none there: its best
        problem's), and each source's share of their expected informative groups, with `explore`
        (the weights: where this sampler's draws would fall with no source mixer)."""
        if self.prior is None:
            return None
        return self.model_allocation(0.0, PRIOR_GROUP_SIZE)

    def model_allocation(
        self,
        optimism: float = 0.0,
        group_size: int | None = None,
        depth: float = PRIOR_DEPTH,
    ) -> tuple[np.ndarray, np.ndarray]:
        """From the model now: per source, the expected chance of an informative group among the
        problems it would draw (its share of the `depth` batches' worth the model expects most
        learnable in the whole pool; a source with none there: its best problem's), and each
        source's share of their expected informative groups, with `explore` (the weights).

        `optimism` (logit standard deviations): each problem's pass logit is moved towards 0 (p =
        1/2) by up to that many standard deviations of its shared part (`PassRateModel.own_var`:
        what its source's groups teach about it), so a source the model knows little about lately
        (a flagged or a revived one, one not drawn for a while) is tried. `group_size`: the
        completions per group (None: as many as the last groups had). `source_prior` is this at
        step 0 with no optimism and `PRIOR_GROUP_SIZE`."""
        n = len(self._global)
        src = self._source_lookup[self._global]
        S = len(self.names)
        j = np.arange(n)
        mean, var = self.model.predict(j)
        if optimism > 0:
            reach = optimism * np.sqrt(np.maximum(var - self.model.own_var(j), 0.0))
            mean = mean + np.clip(-mean, -reach, reach)
        inf = expected_informative(mean, var, int(group_size or self._group_size))
        inf = inf * self.learning_factor()[src]
        top = np.argsort(-inf, kind="stable")[: min(n, max(1, int(depth * self.batch_size)))]
        mass: np.ndarray = np.bincount(src[top], weights=inf[top], minlength=S).astype(np.float64)
        count = np.bincount(src[top], minlength=S)
        best = np.zeros(S)
        np.maximum.at(best, src, inf)
        learnability = np.where(count > 0, mass / np.maximum(count, 1), best)
        if mass.sum() <= 0:
            mass = np.ones(S)
        weights = (1.0 - self.explore) * mass / float(mass.sum()) + self.explore / S
        return learnability, weights

    def learning_factor(self) -> np.ndarray:
        """Per source, whether its problems are seen to learn when trained on (1: they do, or
        not measured yet; `model_allocation` scales each problem's expected informative groups
        by it).

        A problem trained on (its last group was informative) should pass more often the next
        time it is drawn than the model expected before. Per source, gamma is the surprise of
        those next groups (successes minus the model's expected successes, summed) over their
        information (the sum of n p (1 - p)), a pass logit gained per training as seen, shrunk
        towards `learning_min` by `learning_prior` units of information and recency-weighted
        (`learning_decay` an update). The factor is gamma plus `learning_z` standard errors over
        `learning_min`, clipped to [`LEARNING_FLOOR`, 1]: a source whose problems' groups look
        informative and whose pass rates do not move when trained on (coin-flip rewards) is
        lowered as the evidence grows, while a source drawn little keeps its prior. Where
        training moves no pass rate at all, every well-measured source is lowered alike."""
        st = self.settings
        if not st.learning:
            return np.ones(len(self.names))
        info = self._info + st.learning_prior
        gamma = (self._surprise + st.learning_prior * st.learning_min) / info
        ucb = gamma + st.learning_z / np.sqrt(info)
        return np.clip(ucb / st.learning_min, LEARNING_FLOOR, 1.0)

    def set_scorer(
        self, scorer: Callable[[np.ndarray], Sequence[float] | np.ndarray] | None
    ) -> None:
        """Score candidates with `scorer` before each draw (see the module docstring); None stops.

        The scorer gets the candidates' global indices and returns one float each, higher for a
        problem the policy is more likely to pass now, in any units (the model fits how much it
        says): the policy's mean token log-likelihood of a reference solution is the intended
        one. It runs inside `next_batch()`, in the process that draws. Set it before the first
        rewards are observed (or before `load_state_dict` when resuming a run that had one);
        replacing one scorer by another later is allowed.
        """
        if scorer is not None and not callable(scorer):
            raise TypeError(f"scorer must be callable, got {type(scorer).__name__}")
        if scorer is not None and not self.model.has_signal:
            if self.ledger["updates"]:
                raise RuntimeError(
                    "set_scorer after rollouts were observed would discard what was learnt; "
                    "set it before the first update"
                )
            self._new_model(signal=True)
        self.scorer = scorer  # None: draw without scoring; the model keeps the last signals

    def describe(self) -> str:
        line = super().describe() + f"; score {self.score}, explore {self.explore:g}"
        if self.scorer is not None:
            name = getattr(self.scorer, "__qualname__", type(self.scorer).__name__)
            line += f", scorer {name} with {self.candidates:g} candidates a draw"
        return line + (", difficulty prior" if self.prior is not None else ", no prior")

    # ---- drawing -----------------------------------------------------------------------------
    def scores(self, indices: Sequence[int] | np.ndarray) -> np.ndarray:
        """The draw score of each global index (before `explore` and normalisation)."""
        j = self._slot[np.asarray(indices, dtype=np.int64)]
        if self.score == "learnability":
            return self.model.learnability(j)
        if self.score == "learnability-low":
            return self.model.learnability_low(j)
        return self.model.in_band(j, *self.band)

    def predicted_pass_rate(self, indices: Sequence[int] | np.ndarray) -> np.ndarray:
        """The model's expected pass rate of each global index, now."""
        return self.model.pass_rate(self._slot[np.asarray(indices, dtype=np.int64)])

    def _probs(self, slots: np.ndarray, explore: float) -> np.ndarray:
        """Draw probabilities of `slots`: score^power normalised, mixed with a uniform share."""
        n = len(slots)
        score = self.scores(self._global[slots])
        score = np.where(np.isfinite(score) & (score > 0), score, 0.0) ** self.power
        total = score.sum()
        probs = score / total if total > 0 else np.full(n, 1.0 / n)
        return (1.0 - explore) * probs + explore / n

    def _draw(self, probs: np.ndarray, k: int) -> np.ndarray:
        """`k` positions by `probs` (Gumbel top-k), without replacement while there are enough."""
        n = len(probs)
        picks: list[np.ndarray] = []
        left = k
        while left > 0:
            t = min(left, n)
            keys = np.log(np.maximum(probs, 1e-300)) + self.rng.gumbel(size=n)
            picks.append(np.argpartition(-keys, t - 1)[:t] if t < n else np.argsort(-keys))
            left -= t
        return np.concatenate(picks)

    def _pick(self, slots: np.ndarray, k: int, explore: float, draw: str | None = None) -> np.ndarray:
        """`k` positions into `slots` by the draw rule (`draw`, default the sampler's), a share
        `explore` of them uniformly."""
        draw = draw or self.draw
        if draw == "proportional":
            return self._draw(self._probs(slots, explore), k)
        n = len(slots)
        picks: list[np.ndarray] = []
        left = k
        best = self.scores(self._global[slots]) if draw == "greedy" else None
        while left > 0:  # more than the source holds: every problem, then again
            t = min(left, n)
            if best is not None:  # the highest expected score (the model's mean belief)
                key = np.where(np.isfinite(best), best, 0.0)
            else:
                key = -self._distance(self.model.sample_pass_rate(slots, self.rng))
            k_uniform = int(self.rng.binomial(t, explore)) if explore > 0 else 0
            if k_uniform:
                key[self.rng.permutation(n)[:k_uniform]] = np.inf
            key += 1e-12 * self.rng.random(n)  # ties broken at random
            picks.append(np.argpartition(-key, t - 1)[:t] if t < n else np.argsort(-key))
            left -= t
        return np.concatenate(picks)

    def _distance(self, p: np.ndarray) -> np.ndarray:
        """How far sampled pass rates lie from what `score` seeks (0: the best)."""
        if self.score == "learnability":
            return np.abs(p - 0.5)
        if self.score == "learnability-low":
            return np.abs(p - 1.0 / 3.0)
        lo, hi = self.band
        return np.maximum(lo - p, 0.0) + np.maximum(p - hi, 0.0)

    def _take(self, s: int, k: int) -> list[int]:
        slots = self._slots[s]
        if self.scorer is None:
            return self._global[slots[self._pick(slots, k, self.explore)]].tolist()
        # the uniform share stays a share of the batch: a signal that says little must not cut
        # the re-probing of problems believed solved or hopeless
        n = len(slots)
        k_uniform = int(self.rng.binomial(k, self.explore)) if k <= n else 0
        extra = slots[self.rng.permutation(n)[:k_uniform]]
        rest = np.setdiff1d(slots, extra, assume_unique=True) if k_uniform else slots
        k_scored = k - k_uniform
        m = min(len(rest), math.ceil(self.candidates * k_scored))
        # candidates by the posterior's draws ("greedy" is for drawing without a signal: taking
        # the problems a noisy signal rates best would bias the signal's calibration)
        draw = "thompson" if self.draw == "greedy" else self.draw
        cand = rest[self._pick(rest, m, self.explore, draw)] if m else rest[:0]
        scored = np.concatenate([cand, extra])
        self.model.observe_signal(scored, self._score_now(self._global[scored]))
        pick = cand[self._draw(self._probs(cand, 0.0), k_scored)] if k_scored else cand[:0]
        return self._global[np.concatenate([pick, extra])].tolist()

    def _score_now(self, indices: np.ndarray) -> np.ndarray:
        """The scorer's values for `indices`, checked, and counted in the ledger."""
        assert self.scorer is not None
        raw = self.scorer(indices.copy())
        try:
            x = np.asarray(raw, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError) as e:
            raise ValueError(f"the scorer must return one float per problem: {e}") from e
        if x.shape != indices.shape:
            raise ValueError(
                f"the scorer returned {x.size} values for {indices.size} problems; "
                "give one float per index (NaN where unknown)"
            )
        if np.isinf(x).any():
            raise ValueError("the scorer returned an infinite value; use NaN for unknown")
        self.ledger["scored_prompts"] += int(indices.size)
        return x

    # ---- learning ----------------------------------------------------------------------------
    def _observe(self, out: GroupOutcome, successes: np.ndarray) -> None:
        j = self._slot[out.problems]
        n = out.attempts.astype(np.float64)
        if self.settings.learning:  # the learning check (`learning_factor`)
            p = self.model.pass_rate(j)
            src = self._source_lookup[out.problems]
            again = self._trained[j] & (n > 0)
            self._surprise *= self.settings.learning_decay
            self._info *= self.settings.learning_decay
            np.add.at(self._surprise, src[again], (successes - n * p)[again])
            np.add.at(self._info, src[again], (n * p * (1.0 - p))[again])
        self.model.observe(j, successes, out.attempts)
        self._trained[j[n > 0]] = ~np.asarray(out.zero_advantage, dtype=bool)[n > 0]
        if out.attempts.size and out.attempts.max() > 0:
            self._group_size = max(1, int(np.median(out.attempts[out.attempts > 0])))

    def _state(self) -> dict:
        return {
            "model": self.model.state(),
            "group_size": self._group_size,
            "trained": self._trained.copy(),
            "surprise": self._surprise.copy(),
            "info": self._info.copy(),
        }

    def _load_state(self, state: dict) -> None:
        self.model.load_state(state["model"])
        self._group_size = int(state.get("group_size", PRIOR_GROUP_SIZE))
        if "trained" in state:  # a state saved before the learning check has none
            self._trained = np.asarray(state["trained"], dtype=bool).copy()
            self._surprise = np.asarray(state["surprise"], dtype=np.float64).copy()
            self._info = np.asarray(state["info"], dtype=np.float64).copy()
