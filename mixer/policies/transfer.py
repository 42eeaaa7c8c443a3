"""A transfer-aware bandit in the style of TAC (Yang et al., 2026): learnability plus cross-source transfer.

TAC scores each source by its learnability (from the GRPO advantages its rollouts produced) and by
how well a step on it transfers to the other sources (the alignment of its gradient with theirs,
from projected gradients of the same step), and found the transfer term worth up to 10% relative
over a learnability-only bandit. Here the learnability is `AdvantageBandit`'s scale-free moving
average of mean |advantage|, and the transfer is a moving average of cos(g_i, sum_{j != i} g_j)
over `Feedback.grad_sketch`.
"""

from __future__ import annotations

import numpy as np

from mixer.feedback import Feedback
from mixer.policies.baselines import AdvantageBandit, softmax
from mixer.policies.sketch import alignment_scores

__all__ = ["TransferBandit"]


class TransferBandit(AdvantageBandit):
    """Weights softmax((L_i / mean L + `transfer` * T_i) / temperature).

    L_i: moving average of `signal` (mean |advantage| by default; see `AdvantageBandit`, whose
    keywords apply). T_i: moving average (the same `decay`) of the cosine between source i's
    sketched gradient and the sum of the others' (`Feedback.grad_sketch`), in [-1, 1]; a source
    that was not drawn keeps its value. Without gradient sketches for `max(50, 2 / (1 - decay))`
    steps it raises ValueError rather than silently behaving as a learnability-only bandit
    (`transfer=0` is that bandit, and needs none).
    """

    name = "transfer-bandit"

    def __init__(self, n_sources: int, transfer: float = 1.0, **kw) -> None:
        if transfer < 0:
            raise ValueError(f"transfer must be >= 0, got {transfer}")
        self.transfer = float(transfer)
        self.align = np.full(int(n_sources), np.nan)  # before the base computes the first weights
        self._no_sketch = 0
        super().__init__(n_sources, **kw)

    def _compute(self) -> np.ndarray:
        t = np.where(np.isfinite(self.align), self.align, 0.0)
        return softmax((self._scores() + self.transfer * t) / self.temperature)

    def _update(self, fb: Feedback) -> None:
        if fb.grad_sketch is None:
            self._no_sketch += 1
            never = not np.isfinite(self.align).any()
            if (
                self.transfer > 0
                and never
                and self._no_sketch >= max(50, int(2 / (1 - self.decay)))
            ):
                raise ValueError(
                    "TransferBandit got no Feedback.grad_sketch in "
                    f"{self._no_sketch} steps: it needs per-source gradient sketches (see "
                    "mixer.adapters.torch.per_source_sketches); use advantage-bandit without them"
                )
        else:
            a = alignment_scores(fb.grad_sketch)
            seen = np.isfinite(a)
            known = np.isfinite(self.align)
            base = np.where(known, self.align, 0.0)  # no transfer is the neutral start
            self.align = np.where(
                seen, self.decay * base + (1 - self.decay) * np.where(seen, a, 0.0), self.align
            )
        super()._update(fb)

    def _state(self) -> dict:
        return {**super()._state(), "align": self.align.copy(), "no_sketch": self._no_sketch}

    def _load_state(self, st: dict) -> None:
        super()._load_state(st)
        self.align = np.asarray(st["align"], dtype=np.float64).copy()
        self._no_sketch = int(st["no_sketch"])
