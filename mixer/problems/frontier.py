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
from typing import Any, cast

import numpy as np

from mixer.policies.base import Mixer
from mixer.problems.base import GroupOutcome, ProblemSampler
from mixer.problems.pass_rate import PassRateModel, prior_from_unit

__all__ = ["FrontierSampler", "SCORES"]

SCORES = ("learnability", "learnability-low", "band")


class FrontierSampler(ProblemSampler):
    """A `ProblemSampler` that draws by predicted learnability (see the module docstring).

    Args:
        groups: source name -> global indices of its problems (as `MixedSampler`).
        batch_size: problems per batch.
        difficulty, difficulty_std: per global index (arrays as long as the dataset), on codemix's
            [0, 1] scale (`difficulty_scale="unit"`, the shards' columns) or as item-response
            logits (`"logit"`); NaN where unknown. None: no prior (each problem starts at its
            source's mean, and learns from its own attempts).
        score: "learnability" (E[p (1 - p)]), "learnability-low" (E[p (1 - p)^2]: leans to the
            problems still mostly failed) or "band" (posterior probability that p is in `band`).
        explore: share of each source's draws made uniformly.
        power: scores are raised to this power before normalising (1: proportional).
        model_kwargs: keywords for `PassRateModel` (half_life, drift, tau, ...).
        scorer: a callable from global indices (an int array) to one float per problem, higher for
            problems the policy is more likely to pass now (NaN: unknown); see `set_scorer`.
        candidates: with a scorer, problems scored per problem drawn (at least 1).
    Other arguments are `ProblemSampler`'s. `exhaust` is always "recycle": problems are redrawn.
    """

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
        score: str = "learnability",
        band: tuple[float, float] = (0.2, 0.8),
        explore: float = 0.05,
        power: float = 1.0,
        model_kwargs: Mapping[str, Any] | None = None,
        exhaust: str = "recycle",
        scorer: Callable[[np.ndarray], Sequence[float] | np.ndarray] | None = None,
        candidates: float = 4.0,
    ) -> None:
        if exhaust != "recycle":
            raise ValueError(
                "FrontierSampler redraws problems by design; exhaust must be 'recycle'"
            )
        if score not in SCORES:
            raise ValueError(f"score must be one of {SCORES}, got {score!r}")
        if not 0.0 <= explore <= 1.0:
            raise ValueError(f"explore must be in [0, 1], got {explore}")
        if not power > 0:
            raise ValueError(f"power must be > 0, got {power}")
        if not candidates >= 1:
            raise ValueError(f"candidates must be >= 1, got {candidates}")
        lo, hi = (float(x) for x in band)
        if not 0.0 <= lo < hi <= 1.0:
            raise ValueError(f"band must be (lo, hi) with 0 <= lo < hi <= 1, got {band}")
        if difficulty_scale not in ("unit", "logit"):
            raise ValueError(
                f"difficulty_scale must be 'unit' or 'logit', got {difficulty_scale!r}"
            )
        super().__init__(
            groups,
            batch_size,
            mixer=mixer,
            seed=seed,
            num_steps=num_steps,
            mixer_kwargs=mixer_kwargs,
            reward_range=reward_range,
        )
        self.score, self.band, self.explore, self.power = (
            score,
            (lo, hi),
            float(explore),
            float(power),
        )
        self.difficulty_scale = difficulty_scale
        self.model_kwargs = dict(model_kwargs or {})
        self.candidates = float(candidates)
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
        self.set_prior(difficulty, difficulty_std)
        if scorer is not None:
            self.set_scorer(scorer)

    # ---- the prior ---------------------------------------------------------------------------
    def set_prior(
        self,
        difficulty: Sequence[float] | np.ndarray | None,
        difficulty_std: Sequence[float] | np.ndarray | None = None,
    ) -> None:
        """(Re)start the model from a difficulty per global index (NaN where unknown; None: none)."""
        if self.ledger["updates"]:
            raise RuntimeError(
                "set_prior after rollouts were observed would discard what was learnt"
            )
        n = len(self._source_lookup)
        b = s = None
        if difficulty is not None:
            d = np.asarray(difficulty, dtype=np.float64).reshape(-1)
            sd = (
                None
                if difficulty_std is None
                else np.asarray(difficulty_std, np.float64).reshape(-1)
            )
            if d.shape[0] < n or (sd is not None and sd.shape[0] < n):
                raise ValueError(
                    f"difficulty needs a value for every global index (at least {n}), got "
                    f"{d.shape[0]}" + ("" if sd is None else f" and {sd.shape[0]} stds")
                )
            d, sd = d[self._global], None if sd is None else sd[self._global]
            if self.difficulty_scale == "unit":
                b, s = prior_from_unit(d, sd, len(d))
            else:
                if sd is not None and (sd[np.isfinite(sd)] < 0).any():
                    raise ValueError("difficulty_std must be >= 0 (NaN when unknown)")
                b = d
                s = np.full(len(d), np.nan) if sd is None else sd
        self._prior = (b, s)
        self._new_model(signal=self.scorer is not None)

    def _new_model(self, signal: bool) -> None:
        """A fresh `PassRateModel` over the prior `set_prior` last read."""
        b, s = self._prior
        src = self._source_lookup[self._global]
        self.model = PassRateModel(src, len(self.names), b, s, signal=signal, **self.model_kwargs)

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

    @classmethod
    def from_dataset(
        cls,
        dataset: Any,
        batch_size: int,
        group_by: str = "source",
        difficulty_column: str | None = "difficulty",
        std_column: str | None = "difficulty_std",
        **kw: Any,
    ) -> FrontierSampler:
        """Sources from a column of the dataset the trainer reads (`MixedSampler.from_dataset`:
        an export's split, a build's table), with the prior read from `difficulty_column` /
        `std_column` (None: no prior; a named column must exist). Global index = row."""
        from filters.contracts import UserError
        from mixer.rows import dataset_column

        sampler = cast(
            "FrontierSampler", super().from_dataset(dataset, batch_size, group_by=group_by, **kw)
        )
        cols: dict[str, list] = {}
        for col in (difficulty_column, std_column):
            if col:
                values = dataset_column(dataset, col)
                if values is None:
                    raise UserError(
                        f"the dataset has no column {col!r} (pass difficulty_column=None to "
                        "sample without a prior)"
                    )
                cols[col] = values
        if difficulty_column is not None:
            try:
                d = np.array([np.nan if x is None else float(x) for x in cols[difficulty_column]])
                sd = (
                    None
                    if std_column is None
                    else np.array([np.nan if x is None else float(x) for x in cols[std_column]])
                )
            except (TypeError, ValueError):
                raise UserError(
                    f"columns {difficulty_column!r} / {std_column!r} must hold numbers or nulls"
                ) from None
            try:
                sampler.set_prior(d, sd)
            except ValueError as e:
                raise UserError(str(e)) from None
        return sampler

    def describe(self) -> str:
        line = super().describe() + f"; score {self.score}, explore {self.explore:g}"
        if self.scorer is not None:
            name = getattr(self.scorer, "__qualname__", type(self.scorer).__name__)
            line += f", scorer {name} with {self.candidates:g} candidates a draw"
        return line + (", difficulty prior" if self._prior[0] is not None else ", no prior")

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

    def _take(self, s: int, k: int) -> list[int]:
        slots = self._slots[s]
        if self.scorer is None:
            return self._global[slots[self._draw(self._probs(slots, self.explore), k)]].tolist()
        # the uniform share stays a share of the batch: a signal that says little must not cut
        # the re-probing of problems believed solved or hopeless
        n = len(slots)
        k_uniform = int(self.rng.binomial(k, self.explore)) if k <= n else 0
        extra = slots[self.rng.permutation(n)[:k_uniform]]
        rest = np.setdiff1d(slots, extra, assume_unique=True) if k_uniform else slots
        k_scored = k - k_uniform
        m = min(len(rest), math.ceil(self.candidates * k_scored))
        cand = rest[self._draw(self._probs(rest, self.explore), m)] if m else rest[:0]
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
        self.model.observe(self._slot[out.problems], successes, out.attempts)

    def _state(self) -> dict:
        return {"model": self.model.state()}

    def _load_state(self, state: dict) -> None:
        self.model.load_state(state["model"])
