"""B3 v2's oracle arm (validity gate (b)): it draws only problems whose current pass rate lies in a
band, knowing that rate from probes the benchmark makes and does not charge (every `every` steps,
`samples` completions of every train problem with the policy being trained).

Not a method anyone could run for free: it is the ceiling that says whether choosing problems can
pay at all on these tasks. If drawing only problems the model sometimes solves does not reach
uniform's final pass rate with far fewer rollouts, no sampler can be ranked here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mixer import ProblemSampler, make_mixer

__all__ = ["OracleSampler", "TopBOracle"]


class OracleSampler(ProblemSampler):
    """Draws uniformly among the problems whose probed pass rate lies in `band` (inclusive): its
    source weights are each source's share of those problems, and inside a source it draws without
    replacement in a batch. Before the first probe, or when no problem is inside the band, it draws
    as uniform does. `set_pass_rates` gives it the latest probe."""

    def __init__(
        self,
        groups: Mapping[str, Sequence[int] | np.ndarray],
        batch_size: int,
        band: tuple[float, float] = (0.1, 0.9),
        every: int = 25,
        samples: int = 4,
        **kw: Any,
    ) -> None:
        kw.pop("mixer", None)  # the oracle sets its own source weights
        super().__init__(groups, batch_size, **kw)
        self.band = (float(band[0]), float(band[1]))
        self.every, self.samples = int(every), int(samples)
        self.eligible: list[np.ndarray] | None = None
        self.probes: list[dict[str, Any]] = []

    def set_pass_rates(self, rates: np.ndarray, step: int) -> None:
        """The probed pass rate of every problem (indexed by row; NaN where not probed)."""
        lo, hi = self.band
        with np.errstate(invalid="ignore"):
            inside = (rates >= lo - 1e-12) & (rates <= hi + 1e-12)
        self.eligible = [g[inside[g]] for g in self.groups]
        counts = np.array([len(e) for e in self.eligible], dtype=float)
        self.probes.append({"step": int(step), "eligible": counts.astype(int).tolist()})
        if counts.sum() == 0:  # nothing inside the band: draw as uniform does
            self.eligible = None
            counts = np.ones(len(self.groups))
        self.mixer = make_mixer(
            "static", len(self.names), names=self.names, weights=counts, floor=0.0
        )

    def _take(self, s: int, k: int) -> list[int]:
        if self.eligible is None:
            return super()._take(s, k)
        pool = self.eligible[s]
        return self.rng.choice(pool, size=k, replace=k > len(pool)).tolist()


class TopBOracle(ProblemSampler):
    """B3 v3's oracle (issue 53): each round it probes fresh, with the policy being trained, the
    problems it may draw, and draws the `batch_size` with the highest informativeness p(1 - p) of
    their probe (ties broken at random). A round probes `pool` train problems at a time, drawn
    uniformly without replacement (all of them at once when `pool` is None), `samples`
    completions each, until at least `enough` of the probed are live (probe pass rate strictly
    inside (0, 1)) or `most` have been probed (b3v3.md section 5, amendment 2: one batch of 32 a
    round found 4.2 live on average and filled the batch with dead problems). The benchmark makes
    the probes (`begin_round`, then `candidates` and `record` until `candidates` is empty, then
    `choose`) and counts them apart from the arm's rollouts. A reference, not a method: what
    choosing by the current pass rate can buy, at no charge."""

    def __init__(
        self,
        groups: Mapping[str, Sequence[int] | np.ndarray],
        batch_size: int,
        pool: int | None = 32,
        samples: int = 4,
        enough: int = 1,
        most: int | None = None,
        **kw: Any,
    ) -> None:
        kw.pop("mixer", None)  # its draws are the probe's top B; the source weights stay uniform
        super().__init__(groups, batch_size, **kw)
        self.pool, self.samples, self.enough = pool, int(samples), int(enough)
        self.all = np.concatenate([np.asarray(g, dtype=np.int64) for g in self.groups])
        self.most = len(self.all) if most is None else min(int(most), len(self.all))
        if self.samples < 1 or self.enough < 1 or (pool is not None and int(pool) < 1):
            raise ValueError("TopBOracle: pool, samples and enough must be at least 1")
        self.chosen: np.ndarray | None = None
        self.probes: list[dict[str, Any]] = []
        self.begin_round()

    def begin_round(self) -> None:
        """Start a round's probes: nothing probed yet."""
        self._cands: list[np.ndarray] = []
        self._rates: list[np.ndarray] = []

    def _probed(self) -> np.ndarray:
        return np.concatenate(self._cands) if self._cands else np.zeros(0, dtype=np.int64)

    def _live(self) -> int:
        r = np.concatenate(self._rates) if self._rates else np.zeros(0)
        return int(((r > 0) & (r < 1)).sum())

    def candidates(self) -> np.ndarray:
        """The next problems to probe this round (none once it has probed enough)."""
        probed = self._probed()
        if self._cands and (self._live() >= self.enough or len(probed) >= self.most):
            return np.zeros(0, dtype=np.int64)
        rest = np.setdiff1d(self.all, probed)
        k = len(rest) if self.pool is None else int(self.pool)
        k = min(k, len(rest), self.most - len(probed))
        return np.sort(self.rng.choice(rest, size=k, replace=False)) if k > 0 else rest[:0]

    def record(self, candidates: np.ndarray, rates: np.ndarray) -> None:
        """The probe of `candidates`: their pass rates, in order."""
        if len(candidates) != len(rates):
            raise ValueError("TopBOracle.record: one rate per candidate")
        self._cands.append(np.asarray(candidates, dtype=np.int64))
        self._rates.append(np.asarray(rates, dtype=float))

    def choose(self, candidates: np.ndarray | None = None, rates: np.ndarray | None = None) -> None:
        """The next batch: the `batch_size` probed this round of highest p(1 - p) (`candidates`
        and `rates`: one probe recorded first, for a caller that probes once)."""
        if candidates is not None and rates is not None:
            self.record(candidates, rates)
        cands, r = self._probed(), np.concatenate(self._rates) if self._rates else np.zeros(0)
        info = r * (1.0 - r)
        order = np.lexsort((self.rng.random(len(cands)), -info))
        self.chosen = cands[order[: self.batch_size]]
        self.probes.append(
            {"candidates": len(cands), "live": int((info > 0).sum()),
             "chosen_info": round(float(info[order[: self.batch_size]].mean()), 4)}
        )  # fmt: skip
        self.begin_round()

    def next_batch(self) -> list[int]:
        idx = super().next_batch()  # the bookkeeping of a draw (weights id, ledger of batches)
        if self.chosen is None:  # no probe before this draw: as uniform
            return idx
        idx = [int(i) for i in self.chosen[: len(idx)]]
        self.chosen = None
        self.last_problems = np.asarray(idx, dtype=np.int64)
        if self.last_weights_id is not None and self.last_weights_id in self._batches:
            self._batches[self.last_weights_id] = self.last_problems
        return idx
