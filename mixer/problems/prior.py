"""What the build knows about each problem before the first rollout, as a prior for every sampler
and source mixer: the curated difficulty, its uncertainty, and whether no ranking model ever
solved the problem.

codemix's `difficulty` column is the logistic of an item-response logit b (`filters.stages.difficulty.irt`:
a model of ability theta passes a problem of logit difficulty b with probability
sigmoid(theta - b)), fitted from the pass rates of the models that ranked the build. The policy
being trained starts near those models, so before any rollout its pass logit on problem j is taken
as -b_j, with the curated std of b_j plus `tau` (how far one policy's problems differ from the
ranking models') as its uncertainty.

**Never solved.** Item-response fitting gives a problem that no ranking model passed a
difficulty from its prior and its failures alone (on B3 every such problem got the same value,
the build's highest): that value is a bound ("at least this hard"), not a measurement, and on B3
those problems were dead (208 of 215 at 0 of 16 passes). A problem is taken as never solved when
the dataset says so: `codemix export` writes a `never_solved` column (true where the build's
`pass_rate` shows rollouts and no pass). Its prior pass rate is then `never_solved_pass` (logit
std `never_solved_std`), whatever its difficulty.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from filters.stages.difficulty.irt import unit_to_logit

__all__ = [
    "DifficultyPrior",
    "TAU",
    "checked_unit",
    "expected_informative",
    "floats_of",
    "informative_probability",
]

#: How far one policy's pass logits stray from the ranking models' line (logit std): the prior's
#: spread beyond the curated uncertainty, here and in `PassRateModel`.
TAU = 0.5
_GH_X, _GH_W = np.polynomial.hermite.hermgauss(24)


def informative_probability(p: np.ndarray | float, group_size: int) -> np.ndarray:
    """P(a group of `group_size` completions with pass rate p is not all equal): the chance that
    GRPO gets a nonzero advantage from it (for 0/1 rewards)."""
    p = np.asarray(p, dtype=np.float64)
    return 1.0 - p**group_size - (1.0 - p) ** group_size


def expected_informative(mean: np.ndarray, var: np.ndarray, group_size: int) -> np.ndarray:
    """E[informative_probability(sigmoid(z))] for z ~ N(mean, var), by Gauss-Hermite quadrature."""
    mean = np.asarray(mean, dtype=np.float64)
    z = mean[..., None] + np.sqrt(2.0 * np.maximum(var, 0.0))[..., None] * _GH_X
    p = 0.5 * (1.0 + np.tanh(0.5 * z))
    return informative_probability(p, group_size) @ _GH_W / math.sqrt(math.pi)


def checked_unit(
    difficulty: Sequence[float] | np.ndarray,
    difficulty_std: Sequence[float] | np.ndarray | None,
    n: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """codemix's [0, 1] `difficulty` / `difficulty_std` columns as float arrays (NaN where unknown;
    std all NaN when None), each `n` long (default: as many as `difficulty`). Values outside
    [0, 1], negative stds or other lengths raise ValueError."""
    d = np.asarray(difficulty, dtype=np.float64).reshape(-1)
    if n is not None and d.shape[0] != n:
        raise ValueError(f"difficulty has {d.shape[0]} values for {n} problems")
    n = d.shape[0]
    sd = (
        np.full(n, np.nan)
        if difficulty_std is None
        else np.asarray(difficulty_std, dtype=np.float64).reshape(-1)
    )
    if sd.shape[0] != n:
        raise ValueError(f"difficulty_std has {sd.shape[0]} values for {n} problems")
    ok = np.isfinite(d)
    if ((d[ok] < 0) | (d[ok] > 1)).any():
        raise ValueError(
            "difficulty must lie in [0, 1] (codemix's scale; NaN when unknown); pass "
            "difficulty_scale='logit' for item-response logits"
        )
    if (sd[np.isfinite(sd)] < 0).any():
        raise ValueError("difficulty_std must be >= 0 (NaN when unknown)")
    return d, sd


@dataclass(frozen=True)
class DifficultyPrior:
    """Per problem (global index): the prior pass logit's mean and std for the policy at the start,
    whether the problem was never solved, and whether anything was known (`known`).

    Build it with `from_unit` (codemix's [0, 1] columns) or `from_logit` (item-response logits);
    a problem sampler builds it from its `difficulty` arguments or its dataset's columns."""

    mean: np.ndarray  # prior pass logit (-b), NaN where nothing is known
    std: np.ndarray  # its std (curated std, tau and the never-solved spread included)
    never_solved: np.ndarray  # bool

    @property
    def known(self) -> np.ndarray:
        return np.isfinite(self.mean)

    @classmethod
    def from_unit(
        cls,
        difficulty: Sequence[float] | np.ndarray,
        difficulty_std: Sequence[float] | np.ndarray | None = None,
        never_solved: Sequence[bool] | np.ndarray | None = None,
        tau: float = TAU,
        default_std: float = 1.0,
        never_solved_pass: float = 0.01,
        never_solved_std: float = 1.0,
    ) -> DifficultyPrior:
        """From codemix's [0, 1] `difficulty` / `difficulty_std` (NaN where unknown).

        `never_solved` (bool per problem; None: none) marks the problems no ranking model solved
        (see the module docstring). Values outside [0, 1] or negative stds raise ValueError."""
        d, sd = checked_unit(difficulty, difficulty_std)
        n, ok = d.shape[0], np.isfinite(d)
        if not 0.0 < never_solved_pass < 1.0:
            raise ValueError(f"never_solved_pass must lie in (0, 1), got {never_solved_pass}")
        ns = np.zeros(n, dtype=bool)
        if never_solved is not None:
            ns = np.asarray(never_solved, dtype=bool).reshape(-1)
            if ns.shape[0] != n:
                raise ValueError(f"never_solved has {ns.shape[0]} values for {n} problems")
        mean = np.full(n, np.nan)
        std = np.full(n, np.nan)
        b, sb = unit_to_logit(d[ok], np.where(np.isfinite(sd[ok]), sd[ok], np.nan))
        sb = np.where(np.isfinite(sb), sb, default_std)
        mean[ok] = -b
        std[ok] = np.sqrt(sb**2 + tau**2)
        p0 = math.log(never_solved_pass / (1.0 - never_solved_pass))
        mean[ns] = p0
        std[ns] = never_solved_std
        return cls(mean=mean, std=std, never_solved=ns & True)

    @classmethod
    def from_logit(
        cls,
        difficulty: Sequence[float] | np.ndarray,
        difficulty_std: Sequence[float] | np.ndarray | None = None,
        tau: float = TAU,
        default_std: float = 1.0,
    ) -> DifficultyPrior:
        """From item-response logits b (NaN where unknown); nothing is read as never solved."""
        b = np.asarray(difficulty, dtype=np.float64).reshape(-1)
        sd = (
            np.full(b.shape[0], np.nan)
            if difficulty_std is None
            else np.asarray(difficulty_std, dtype=np.float64).reshape(-1)
        )
        if sd.shape != b.shape:
            raise ValueError(f"difficulty_std has {sd.shape[0]} values for {b.shape[0]} problems")
        if (sd[np.isfinite(sd)] < 0).any():
            raise ValueError("difficulty_std must be >= 0 (NaN when unknown)")
        sd = np.where(np.isfinite(sd), sd, default_std)
        return cls(
            mean=-b,
            std=np.where(np.isfinite(b), np.sqrt(sd**2 + tau**2), np.nan),
            never_solved=np.zeros(b.shape[0], dtype=bool),
        )

    def __len__(self) -> int:
        return int(self.mean.shape[0])

    def take(self, indices: np.ndarray) -> DifficultyPrior:
        """The prior of `indices` only (global index -> slot order)."""
        i = np.asarray(indices, dtype=np.int64)
        return DifficultyPrior(self.mean[i], self.std[i], self.never_solved[i])

    def pass_rate(self) -> np.ndarray:
        """Each problem's expected pass rate under the prior (NaN where nothing is known)."""
        out = np.full(len(self), np.nan)
        k = self.known
        z = self.mean[k, None] + np.sqrt(2.0) * self.std[k, None] * _GH_X
        out[k] = (0.5 * (1.0 + np.tanh(0.5 * z))) @ _GH_W / math.sqrt(math.pi)
        return out

    def informative(self, group_size: int) -> np.ndarray:
        """Each problem's expected chance of an informative group of `group_size` (NaN where
        nothing is known)."""
        out = np.full(len(self), np.nan)
        k = self.known
        out[k] = expected_informative(self.mean[k], self.std[k] ** 2, group_size)
        return out

    def source_learnability(
        self, groups: Sequence[np.ndarray], group_size: int
    ) -> np.ndarray | None:
        """Per source, the expected chance that a problem drawn uniformly from it gives an
        informative group (its problems without a prior count as the known ones' mean); None
        when no problem of any source has a prior."""
        inf = self.informative(group_size)
        if not np.isfinite(inf).any():
            return None
        fill = float(np.nanmean(inf))
        out = []
        for g in groups:
            v = inf[np.asarray(g, dtype=np.int64)]
            v = np.where(np.isfinite(v), v, fill)
            out.append(float(v.mean()) if v.size else 0.0)
        return np.asarray(out)


def floats_of(values: list, name: str) -> np.ndarray:
    """A dataset column as floats (None: NaN); `UserError` naming the column otherwise."""
    try:
        return np.array([np.nan if x is None else float(x) for x in values], dtype=np.float64)
    except (TypeError, ValueError):
        from filters.contracts import UserError

        raise UserError(f"column {name!r} must hold numbers or nulls") from None
