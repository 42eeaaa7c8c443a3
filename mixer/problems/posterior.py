"""A MoPPS-style problem sampler (Qu et al. 2025, arXiv 2507.04632): a Beta posterior over each
problem's pass rate, streamed with temporal decay, and Thompson sampling towards a target rate.

Each problem j holds Beta(alpha_j, beta_j), starting at the prior (alpha0, beta0) = (1, 1). After
a group of k rollouts with s summed [0, 1] rewards, only that problem's posterior moves:

    alpha_j <- decay * alpha_j + (1 - decay) * alpha0 + s
    beta_j  <- decay * beta_j  + (1 - decay) * beta0  + (k - s)

so old evidence fades towards the prior as the policy changes. To draw k problems from a source,
one pass rate is sampled from every problem's posterior and the k whose samples lie closest to
`target` (0.5: the largest reward variance) are taken. No rollout is spent on prediction: this is
the published rollout-free baseline for `FrontierSampler`.

With the build's difficulty (`difficulty=`, `from_dataset`; `mixer.problems.prior`), each
problem's prior is its own: Beta(n0 p_j, n0 (1 - p_j)) with p_j the prior's expected pass rate
and n0 = `prior_strength` pseudo-attempts, instead of (alpha0, beta0) for every problem; the decay
pulls towards that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mixer.policies.base import Mixer
from mixer.problems.base import GroupOutcome, ProblemSampler

__all__ = ["BetaPosteriorSampler"]


class BetaPosteriorSampler(ProblemSampler):
    """Thompson sampling over per-problem Beta posteriors with decay (MoPPS), inside each source;
    the source mixer still says how many problems each source gives."""

    def __init__(
        self,
        groups: Mapping[str, Sequence[int] | np.ndarray],
        batch_size: int,
        mixer: Mixer | str | None = None,
        prior: tuple[float, float] = (1.0, 1.0),
        decay: float = 0.5,
        target: float = 0.5,
        prior_strength: float = 2.0,
        difficulty: Sequence[float] | np.ndarray | None = None,
        difficulty_std: Sequence[float] | np.ndarray | None = None,
        never_solved: Sequence[bool] | np.ndarray | None = None,
        **kw: Any,
    ) -> None:
        a0, b0 = (float(x) for x in prior)
        if not (a0 > 0 and b0 > 0):
            raise ValueError(f"prior must be two positive numbers (alpha0, beta0), got {prior}")
        if not 0.0 <= float(decay) <= 1.0:
            raise ValueError(f"decay must lie in [0, 1], got {decay}")
        if not 0.0 <= float(target) <= 1.0:
            raise ValueError(f"target must lie in [0, 1], got {target}")
        if not float(prior_strength) > 0:
            raise ValueError(f"prior_strength must be > 0, got {prior_strength}")
        super().__init__(groups, batch_size, mixer=mixer, **kw)
        self.beta_prior, self.decay, self.target = (a0, b0), float(decay), float(target)
        self.prior_strength = float(prior_strength)
        self.set_prior(difficulty, difficulty_std, never_solved)

    def _prior_changed(self) -> None:
        """Each problem's (alpha0, beta0): its prior pass rate's, or `prior` for all."""
        n = len(self._source_lookup)
        a0, b0 = self.beta_prior
        self.alpha0, self.beta0 = np.full(n, a0), np.full(n, b0)
        if self.prior is not None:
            p = self.prior.pass_rate()
            known = np.isfinite(p)
            self.alpha0[known] = self.prior_strength * p[known]
            self.beta0[known] = self.prior_strength * (1.0 - p[known])
        self.alpha, self.beta = self.alpha0.copy(), self.beta0.copy()

    def posterior_mean(self, indices: Sequence[int] | np.ndarray) -> np.ndarray:
        """E[pass rate] of each problem under its posterior."""
        i = np.asarray(indices, dtype=np.int64)
        return self.alpha[i] / (self.alpha[i] + self.beta[i])

    def _take(self, s: int, k: int) -> list[int]:
        g = self.groups[s]
        sampled = self.rng.beta(self.alpha[g], self.beta[g])
        order = np.argsort(np.abs(sampled - self.target), kind="stable")
        if k <= len(g):
            return g[order[:k]].tolist()
        reps = -(-k // len(g))  # a source smaller than its share: every problem, then again
        return np.tile(g[order], reps)[:k].tolist()

    def _observe(self, out: GroupOutcome, successes: np.ndarray) -> None:
        p = out.problems
        fails = out.attempts - successes
        lam = self.decay
        # a problem drawn twice in one batch: its groups update one after the other
        for j, s, f, k in zip(
            p.tolist(), successes.tolist(), fails.tolist(), out.attempts.tolist(), strict=True
        ):
            if k <= 0:  # no reward heard (sandbox faults only): nothing to learn
                continue
            self.alpha[j] = lam * self.alpha[j] + (1 - lam) * self.alpha0[j] + s
            self.beta[j] = lam * self.beta[j] + (1 - lam) * self.beta0[j] + f

    def _state(self) -> dict:
        return {"alpha": self.alpha.copy(), "beta": self.beta.copy()}

    def _load_state(self, state: dict) -> None:
        self.alpha = np.asarray(state["alpha"], dtype=np.float64).copy()
        self.beta = np.asarray(state["beta"], dtype=np.float64).copy()
