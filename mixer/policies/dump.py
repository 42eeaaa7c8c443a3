"""DUMP (Wang et al., 2025): a UCB bandit over each source's sliding-window mean |advantage|.

The source's learnability is the mean |GRPO advantage| of its last `window` samples (a source
whose groups are all solved or all failed has nothing left to teach); the exploration bonus is
sqrt(2 ln(N + 1) / (n_i + 1)) with n_i the samples drawn from source i so far and N their total;
the weights are softmax(score / temperature). Defaults follow the authors' released code
(window 300, bonus weight 1, temperature 0.1).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from mixer.feedback import Feedback
from mixer.policies.base import Mixer
from mixer.policies.baselines import ADV_PER_INFORMATIVE, softmax

__all__ = ["DUMP"]


class DUMP(Mixer):
    """UCB over a sliding window of `signal` per source, then a softmax.

    Feedback carries one mean per source and step, so the window holds (count, mean) pairs and
    keeps the last `window` samples by count (the oldest pair is cut partially), with running
    sums so an update costs the same whatever the window. `counts` decide
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
        prior_samples: int = 16,
        **kw,
    ) -> None:
        super().__init__(n_sources, **kw)
        if window < 1 or temperature <= 0 or c < 0 or prior_samples < 1:
            raise ValueError(
                "DUMP needs window >= 1, temperature > 0, c >= 0, prior_samples >= 1; got "
                f"{window}, {temperature}, {c}, {prior_samples}"
            )
        Feedback(counts=np.zeros(n_sources)).get(signal)  # validates the name
        self.window, self.c, self.prior_samples = int(window), float(c), int(prior_samples)
        self.temperature, self.signal = float(temperature), signal
        self._reset_windows()
        self.pulls = np.zeros(self.n_sources)
        self._policy = self._compute()

    def _reset_windows(self) -> None:
        self.win: list[deque[list[float]]] = [deque() for _ in range(self.n_sources)]
        self.win_n = [0.0] * self.n_sources  # samples in each window
        self.win_sum = [0.0] * self.n_sources  # their sum of the signal

    def window_mean(self) -> np.ndarray:
        """Each source's mean signal over its window (0 before it is first seen, as in DUMP)."""
        n = np.asarray(self.win_n)
        return np.divide(np.asarray(self.win_sum), n, out=np.zeros(self.n_sources), where=n > 0)

    def _compute(self) -> np.ndarray:
        total = self.pulls.sum()
        bonus = self.c * np.sqrt(2.0 * np.log(total + 1.0) / (self.pulls + 1.0))
        return softmax((self.window_mean() + bonus) / self.temperature)

    def _push(self, i: int, n: float, x: float) -> None:
        """Add n samples of mean x to source i's window, dropping its oldest beyond `window`."""
        w = self.win[i]
        w.append([n, x])
        total, acc = self.win_n[i] + n, self.win_sum[i] + n * x
        while total > self.window:
            old = w[0]
            cut = min(old[0], total - self.window)
            old[0] -= cut
            total -= cut
            acc -= cut * old[1]
            if old[0] <= 0:
                w.popleft()
        self.win_n[i], self.win_sum[i] = total, acc

    def _update(self, fb: Feedback) -> None:
        x = fb.get(self.signal)
        seen = np.isfinite(x) & (fb.counts > 0)
        counts, values = fb.counts.tolist(), x.tolist()
        for i in np.flatnonzero(seen).tolist():
            self._push(i, counts[i], values[i])
        self.pulls = self.pulls + np.where(seen, fb.counts, 0.0)
        self._policy = self._compute()

    def _start_from(self, learnability: np.ndarray, weights: np.ndarray) -> bool:
        """Each window starts with `prior_samples` pseudo-samples of the source's expected
        |advantage| (`ADV_PER_INFORMATIVE` times its learnability), counted as pulls: the UCB
        bonus starts where that much evidence would put it."""
        self._reset_windows()
        for i, v in enumerate(learnability.tolist()):
            self._push(i, float(self.prior_samples), ADV_PER_INFORMATIVE * v)
        self.pulls = np.full(self.n_sources, float(self.prior_samples))
        self._policy = self._compute()
        return True

    def _state(self) -> dict:
        return {
            "win": [[list(e) for e in w] for w in self.win],
            "win_n": list(self.win_n),
            "win_sum": list(self.win_sum),
            "pulls": self.pulls.copy(),
        }

    def _load_state(self, st: dict) -> None:
        self.win = [deque([float(n), float(x)] for n, x in w) for w in st["win"]]
        self.win_n = [float(v) for v in st["win_n"]]
        self.win_sum = [float(v) for v in st["win_sum"]]
        self.pulls = np.asarray(st["pulls"], dtype=np.float64).copy()
