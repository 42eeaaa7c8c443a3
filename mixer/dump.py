"""DUMP (Wang et al., 2025): a UCB bandit over each source's sliding-window mean |advantage|.

The source's learnability is the mean |GRPO advantage| of its last `window` samples (a source
whose groups are all solved or all failed has nothing left to teach); the exploration bonus is
sqrt(2 ln(N + 1) / (n_i + 1)) with n_i the samples drawn from source i so far and N their total;
the weights are softmax(score / temperature). Defaults follow the authors' released code
(window 300, bonus weight 1, temperature 0.1).
"""

from __future__ import annotations

import numpy as np

from mixer.base import Mixer
from mixer.baselines import softmax
from mixer.feedback import Feedback

__all__ = ["DUMP"]


class DUMP(Mixer):
    """UCB over a sliding window of `signal` per source, then a softmax.

    Feedback carries one mean per source and step, so the window holds (count, mean) pairs and
    keeps the last `window` samples by count (the oldest pair is cut partially). `counts` decide
    what a sample is: prompts when the trainer counts groups (`feedback_from_rewards` does),
    completions otherwise. `signal` is `adv_abs` in RL; a trainer without advantages may give
    another per-source signal (the LM benchmark uses the training `loss`).
    """

    name = "dump"

    def __init__(
        self,
        n_sources: int,
        window: int = 300,
        c: float = 1.0,
        temperature: float = 0.1,
        signal: str = "adv_abs",
        **kw,
    ) -> None:
        super().__init__(n_sources, **kw)
        if window < 1 or temperature <= 0 or c < 0:
            raise ValueError(
                f"DUMP needs window >= 1, temperature > 0, c >= 0; got {window}, {temperature}, {c}"
            )
        Feedback(counts=np.zeros(n_sources)).get(signal)  # validates the name
        self.window, self.c, self.temperature, self.signal = (
            int(window),
            float(c),
            temperature,
            signal,
        )
        self.win_n: list[list[float]] = [[] for _ in range(self.n_sources)]
        self.win_x: list[list[float]] = [[] for _ in range(self.n_sources)]
        self.pulls = np.zeros(self.n_sources)
        self._policy = self._compute()

    def window_mean(self) -> np.ndarray:
        """Each source's mean signal over its window (0 before it is first seen, as in DUMP)."""
        out = np.zeros(self.n_sources)
        for i in range(self.n_sources):
            n = np.asarray(self.win_n[i])
            if n.sum() > 0:
                out[i] = float((n * np.asarray(self.win_x[i])).sum() / n.sum())
        return out

    def _compute(self) -> np.ndarray:
        total = self.pulls.sum()
        bonus = self.c * np.sqrt(2.0 * np.log(total + 1.0) / (self.pulls + 1.0))
        return softmax((self.window_mean() + bonus) / self.temperature)

    def _update(self, fb: Feedback) -> None:
        x = fb.get(self.signal)
        seen = np.isfinite(x) & (fb.counts > 0)
        for i in np.flatnonzero(seen):
            self.win_n[i].append(float(fb.counts[i]))
            self.win_x[i].append(float(x[i]))
            excess = sum(self.win_n[i]) - self.window
            while excess > 0:  # drop the oldest samples, cutting the oldest pair if needed
                if self.win_n[i][0] <= excess:
                    excess -= self.win_n[i].pop(0)
                    self.win_x[i].pop(0)
                else:
                    self.win_n[i][0] -= excess
                    excess = 0
        self.pulls = self.pulls + np.where(seen, fb.counts, 0.0)
        self._policy = self._compute()

    def _state(self) -> dict:
        return {
            "win_n": [list(v) for v in self.win_n],
            "win_x": [list(v) for v in self.win_x],
            "pulls": self.pulls.copy(),
        }

    def _load_state(self, st: dict) -> None:
        self.win_n = [[float(v) for v in w] for w in st["win_n"]]
        self.win_x = [[float(v) for v in w] for w in st["win_x"]]
        self.pulls = np.asarray(st["pulls"], dtype=np.float64).copy()
