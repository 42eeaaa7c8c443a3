"""The known problem-level methods as `ProblemSampler`s: each spends rollouts to learn a pass rate.

- `DynamicSampling` (DAPO, Yu et al. 2025): draw uniformly, drop groups whose rewards are all
  equal (zero GRPO advantage); the trainer draws again until its batch is full.
- `PassRateBand` (online difficulty filtering, Bae et al. 2025): keep groups whose measured pass
  rate lies in a band (default 0.2-0.8); the same refill loop.
- `GRESO` (Zheng et al. 2025, "Act only when it pays"): before rollout, skip a prompt whose last
  `c` groups were all solved (or all failed) with probability 1 - max(p_easy^c, 0.01) (p_hard for
  failed); p_easy and p_hard move by 0.01 per update towards a target share of zero-variance
  groups (1/3 and 2/3 of `target_zero_variance`); after rollout it filters like DynamicSampling.

Each returns, from `observe`/`update`, which groups to train on; the rollouts of the others are
counted in `ledger["discarded_rollouts"]`. Refilling the batch is the trainer's loop (see
docs/frontier.md); every generated rollout counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mixer.policies.base import Mixer
from mixer.problems.base import GroupOutcome, ProblemSampler

__all__ = ["DynamicSampling", "PassRateBand", "GRESO"]


class DynamicSampling(ProblemSampler):
    """DAPO's dynamic sampling: keep only groups whose rewards are not all equal."""

    def _keep(self, out: GroupOutcome) -> np.ndarray:
        return ~out.zero_advantage


class PassRateBand(ProblemSampler):
    """Online difficulty filtering: keep groups whose mean reward (on [0, 1]) lies in `band`
    (inclusive) and whose advantage is not zero."""

    def __init__(
        self,
        groups: Mapping[str, Sequence[int] | np.ndarray],
        batch_size: int,
        band: tuple[float, float] = (0.2, 0.8),
        **kw: Any,
    ) -> None:
        lo, hi = (float(x) for x in band)
        if not 0.0 <= lo <= hi <= 1.0:
            raise ValueError(f"band must be (lo, hi) with 0 <= lo <= hi <= 1, got {band}")
        super().__init__(groups, batch_size, **kw)
        self.band = (lo, hi)

    def _keep(self, out: GroupOutcome) -> np.ndarray:
        lo, hi = self.band
        with np.errstate(invalid="ignore"):
            inside = (out.mean >= lo - 1e-12) & (out.mean <= hi + 1e-12)
        return inside & ~out.zero_advantage


class GRESO(ProblemSampler):
    """GRESO's pre-rollout skipping from each prompt's reward history, then DAPO's filter.

    A group counts as all solved when its mean reward is >= `easy_threshold`, all failed when
    <= `hard_threshold` (0.98 and 0.11 in the authors' code, for 0/1 rewards). Skipped prompts cost
    no rollout; they are counted in `ledger["skipped_prompts"]`.
    """

    def __init__(
        self,
        groups: Mapping[str, Sequence[int] | np.ndarray],
        batch_size: int,
        mixer: Mixer | str | None = None,
        p_easy: float = 0.5,
        p_hard: float = 0.5,
        target_zero_variance: float = 0.25,
        p_bounds: tuple[float, float] = (0.05, 0.95),
        step: float = 0.01,
        easy_threshold: float = 0.98,
        hard_threshold: float = 0.11,
        **kw: Any,
    ) -> None:
        if kw.get("exhaust", "recycle") != "recycle":
            raise ValueError("GRESO skips prompts across epochs; exhaust must be 'recycle'")
        super().__init__(groups, batch_size, mixer=mixer, **kw)
        self.p_easy, self.p_hard = float(p_easy), float(p_hard)
        self.target_easy = float(target_zero_variance) / 3
        self.target_hard = float(target_zero_variance) * 2 / 3
        self.p_bounds = (float(p_bounds[0]), float(p_bounds[1]))
        self.step_size = float(step)
        self.easy_threshold, self.hard_threshold = float(easy_threshold), float(hard_threshold)
        n = len(self._source_lookup)
        # the latest run of zero-variance groups of each problem: 1 all solved, 2 all failed
        self.run_kind = np.zeros(n, dtype=np.int8)
        self.run_len = np.zeros(n, dtype=np.int64)

    def _skip_probability(self, idx: np.ndarray) -> np.ndarray:
        p = np.where(self.run_kind[idx] == 1, self.p_easy, self.p_hard)
        keep = np.maximum(p ** self.run_len[idx], 0.01)
        return np.where(self.run_kind[idx] > 0, 1.0 - keep, 0.0)

    def _take(self, s: int, k: int) -> list[int]:
        """Walk the source's permutation, skipping each prompt with its skip probability, until
        `k` are kept (a whole source passed over 100 times: take what comes). One vectorised pass
        per epoch; the candidates and random numbers consumed are those of a one-by-one walk."""
        g = self.groups[s]
        out: list[int] = []
        seen, cap = 0, 100 * len(g)
        while len(out) < k:
            if int(self.pos[s]) >= len(g):
                self.epoch[s] += 1
                self.pos[s] = 0
            p = int(self.pos[s])
            cand = g[self._perm(s)[p:]]
            if seen + cand.size > cap:  # the cap falls inside this epoch: the old way, in chunks
                return out + self._take_capped(s, k - len(out), seen, cap)
            state = self.rng.bit_generator.state
            keep = self.rng.random(cand.size) >= self._skip_probability(cand)
            kept = np.cumsum(keep)
            need = k - len(out)
            if kept[-1] >= need:
                used = int(np.searchsorted(kept, need)) + 1  # up to the need-th kept prompt
                self.rng.bit_generator.state = state
                self.rng.random(used)  # consume exactly the numbers a one-by-one walk would
            else:
                used = cand.size
            self.ledger["skipped_prompts"] += int(used - keep[:used].sum())
            out.extend(cand[:used][keep[:used]].tolist())
            self.pos[s] += used
            seen += used
        return out

    def _take_capped(self, s: int, k: int, seen: int, cap: int) -> list[int]:
        out: list[int] = []
        while len(out) < k:
            cand = np.asarray(super()._take(s, k - len(out)), dtype=np.int64)
            seen += cand.size
            if seen > cap:  # the whole source passed over 100 times: take what comes
                out.extend(cand.tolist())
                break
            skip = self.rng.random(cand.size) < self._skip_probability(cand)
            self.ledger["skipped_prompts"] += int(skip.sum())
            out.extend(cand[~skip].tolist())
        return out

    def _observe(self, out: GroupOutcome, successes: np.ndarray) -> None:
        kind = np.where(
            out.zero_advantage & (out.mean >= self.easy_threshold),
            1,
            np.where(out.zero_advantage & (out.mean <= self.hard_threshold), 2, 0),
        ).astype(np.int8)
        p = out.problems
        same = (kind > 0) & (self.run_kind[p] == kind)
        self.run_len[p] = np.where(kind == 0, 0, np.where(same, self.run_len[p] + 1, 1))
        self.run_kind[p] = kind
        if out.n_groups:
            lo, hi = self.p_bounds
            easy, hard = float((kind == 1).mean()), float((kind == 2).mean())
            d = self.step_size
            self.p_easy = (
                max(self.p_easy - d, lo) if easy >= self.target_easy else min(self.p_easy + d, hi)
            )
            self.p_hard = (
                max(self.p_hard - d, lo) if hard >= self.target_hard else min(self.p_hard + d, hi)
            )

    def _keep(self, out: GroupOutcome) -> np.ndarray:
        return ~out.zero_advantage

    def _state(self) -> dict:
        return {
            "p_easy": self.p_easy,
            "p_hard": self.p_hard,
            "run_kind": self.run_kind.copy(),
            "run_len": self.run_len.copy(),
        }

    def _load_state(self, st: dict) -> None:
        self.p_easy, self.p_hard = float(st["p_easy"]), float(st["p_hard"])
        self.run_kind = np.asarray(st["run_kind"], dtype=np.int8).copy()
        self.run_len = np.asarray(st["run_len"], dtype=np.int64).copy()
