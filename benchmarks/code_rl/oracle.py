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

__all__ = ["OracleSampler"]


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
