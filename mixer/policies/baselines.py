"""Baseline mixing policies: uniform, static, ODM (EXP3, Albalak et al. 2023) and a bandit on |advantage|."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mixer.feedback import Feedback
from mixer.policies.base import Mixer

__all__ = ["Uniform", "Static", "ODM", "AdvantageBandit", "ADV_PER_INFORMATIVE", "softmax"]

#: Mean |GRPO advantage| of an informative group of 0/1 rewards: 2 sqrt(p (1 - p)) for its pass
#: rate p, about 0.85 over the pass rates of a group of 8 (1 at p = 1/2, 0.66 at 1/8): what a
#: source whose draws are informative with chance L shows as `adv_abs`, L times this.
ADV_PER_INFORMATIVE = 0.85


def softmax(x: np.ndarray) -> np.ndarray:
    """Numerically stable softmax over the last axis."""
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


class Uniform(Mixer):
    """Equal weight on every available source."""

    name = "uniform"

    def _update(self, fb: Feedback) -> None:
        pass

    def _start_from(self, learnability: np.ndarray, weights: np.ndarray) -> bool:
        return False  # uniform by definition


class Static(Mixer):
    """Fixed weights given by the user (normalised), e.g. proportional to source sizes."""

    name = "static"

    def __init__(self, n_sources: int, weights: Sequence[float] | None = None, **kw) -> None:
        super().__init__(n_sources, **kw)
        w = np.ones(n_sources) if weights is None else np.asarray(weights, dtype=np.float64)
        if w.shape != (n_sources,) or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise ValueError(
                f"static weights must be {n_sources} non-negative numbers, got {weights}"
            )
        self._policy = w / w.sum()

    def _update(self, fb: Feedback) -> None:
        pass

    def _start_from(self, learnability: np.ndarray, weights: np.ndarray) -> bool:
        return False  # the user's weights


class ODM(Mixer):
    """Online Data Mixing as a multi-armed bandit (Albalak et al., 2023).

    Each source's reward is its observed `signal` (training `loss` by default: sources the model
    still finds hard get more weight; use `reward` or `adv_abs` in RL), times `scale`.
    `variant="exp3"` is the paper's EXP3: an importance-weighted, smoothed estimate
    R_i = alpha R_i + (1 - alpha) r_i / P_i (P_i = probability that source i is in a batch of
    this size, which is pi_i for one draw) and weights
    pi = (1 - K eps_t) softmax(eps_{t-1} R) + eps_t, eps_t = min(1/K, sqrt(ln K / (K t))); its
    exploitation fades as eps_t shrinks. `variant="smoothed-mean"` keeps a plain exponential moving
    mean of r_i (every source is observed in most batches, so no importance weight) and uses
    pi = (1 - K eps) softmax(R / temperature) + eps with a fixed exploration `eps` (default 0.1 / K).
    """

    name = "odm"

    def __init__(
        self,
        n_sources: int,
        signal: str = "loss",
        variant: str = "exp3",
        alpha: float = 0.9,
        scale: float = 1.0,
        temperature: float = 0.2,
        eps: float | None = None,
        **kw,
    ) -> None:
        super().__init__(n_sources, **kw)
        if variant not in ("exp3", "smoothed-mean"):
            raise ValueError(f"ODM variant must be 'exp3' or 'smoothed-mean', got {variant!r}")
        Feedback(counts=np.zeros(n_sources)).get(signal)  # validates the name
        self.signal, self.variant, self.alpha = signal, variant, float(alpha)
        self.scale, self.temperature = float(scale), float(temperature)
        self.fixed_eps = 0.1 / n_sources if eps is None else float(eps)
        self.estimate = np.zeros(n_sources)
        self.seen = np.zeros(n_sources, dtype=bool)
        self.t = 0
        self._eps_prev = 1.0 / n_sources

    def _eps(self, t: int) -> float:
        k = self.n_sources
        return min(1.0 / k, float(np.sqrt(np.log(max(k, 2)) / (k * max(t, 1)))))

    def _update(self, fb: Feedback) -> None:
        r = fb.get(self.signal) * self.scale
        seen = np.isfinite(r) & (fb.counts > 0)
        if not seen.any():
            return
        k = self.n_sources
        self.t += 1
        if self.variant == "exp3":
            pi = np.maximum(self.used_weights, 1e-8)
            draws = max(float(fb.counts.sum()), 1.0)
            p_in = 1.0 - (1.0 - pi) ** draws
            est = np.where(seen, r, 0.0) / np.maximum(p_in, 1e-8)
            a = self.alpha
            self.estimate = np.where(seen, a * self.estimate + (1 - a) * est, self.estimate)
            eps = self._eps(self.t)
            self._policy = (1 - k * eps) * softmax(self._eps_prev * self.estimate) + eps
            self._eps_prev = eps
        else:
            a = self.alpha
            first = seen & ~self.seen
            x = np.where(seen, r, 0.0)
            self.estimate = np.where(
                first, x, np.where(seen, a * self.estimate + (1 - a) * x, self.estimate)
            )
            self.seen |= seen
            est = np.where(self.seen, self.estimate, self.estimate[self.seen].max())
            eps = min(self.fixed_eps, 1.0 / k)
            self._policy = (1 - k * eps) * softmax(est / max(self.temperature, 1e-8)) + eps

    def _start_from(self, learnability: np.ndarray, weights: np.ndarray) -> bool:
        return False  # EXP3 explores uniformly first by design (its eps_t starts at 1/K)

    def _state(self) -> dict:
        return {
            "estimate": self.estimate.copy(),
            "seen": self.seen.copy(),
            "t": self.t,
            "eps_prev": self._eps_prev,
        }

    def _load_state(self, st: dict) -> None:
        self.estimate = np.asarray(st["estimate"], dtype=np.float64).copy()
        self.seen = np.asarray(st["seen"], dtype=bool).copy()
        self.t = int(st["t"])
        self._eps_prev = float(st["eps_prev"])


class AdvantageBandit(Mixer):
    """Favour sources whose recent mean |GRPO advantage| is high (they still teach; cf. SEC, DUMP).

    Keeps an exponential moving average `value` of `signal` per source. A source's average starts
    from the mean of what the sources showed when it was first seen (or `prior` if given), so one
    noisy step moves the weights by a tenth of its surprise, not all of it. Scores are the values
    over their mean across sources (scale-free: a signal in any unit steers alike), and
    `mode="boltzmann"` samples in proportion to exp(score / temperature); `mode="ucb"` adds an
    exploration bonus c * sqrt(ln N / n_i) (n_i = steps source i was observed) first. With the
    default temperature 1.0 a source whose signal is twice the mean gets e = 2.7 times the weight
    of an average one (docs/mixer.md names the benchmark that chose it).
    """

    name = "advantage-bandit"

    def __init__(
        self,
        n_sources: int,
        mode: str = "boltzmann",
        temperature: float = 1.0,
        decay: float = 0.9,
        c: float = 0.5,
        prior: float | None = None,
        signal: str = "adv_abs",
        **kw,
    ) -> None:
        super().__init__(n_sources, **kw)
        if mode not in ("boltzmann", "ucb"):
            raise ValueError(f"AdvantageBandit mode must be 'boltzmann' or 'ucb', got {mode!r}")
        if temperature <= 0 or not 0.0 <= decay < 1.0:
            raise ValueError(
                f"need temperature > 0 and decay in [0, 1), got {temperature}, {decay}"
            )
        Feedback(counts=np.zeros(n_sources)).get(signal)
        self.mode, self.temperature, self.decay, self.c = (
            mode,
            float(temperature),
            float(decay),
            float(c),
        )
        self.signal = signal
        self.prior = None if prior is None else float(prior)
        self.value = np.full(n_sources, np.nan)
        self.pulls = np.zeros(n_sources)
        self._policy = self._compute()

    def _scores(self) -> np.ndarray:
        """Each source's value over the mean value (1 = average); unseen sources count as average."""
        v = self.value
        seen = np.isfinite(v)
        fill = self.prior if self.prior is not None else (v[seen].mean() if seen.any() else 1.0)
        v = np.where(seen, v, fill)
        scale = float(np.abs(v).mean())
        return v / scale if scale > 1e-12 else np.zeros_like(v)

    def _compute(self) -> np.ndarray:
        score = self._scores()
        if self.mode == "ucb":
            total = max(self.pulls.sum(), 1.0)
            score = score + self.c * np.sqrt(np.log(total + 1.0) / np.maximum(self.pulls, 1.0))
        return softmax(score / self.temperature)

    @staticmethod
    def _ema(value: np.ndarray, x: np.ndarray, seen: np.ndarray, decay: float, prior) -> np.ndarray:
        """One EMA step on the sources `seen`; a first observation starts from `prior` (or the mean
        of the values known so far, or of this step's observations) instead of from itself."""
        known = np.isfinite(value)
        if prior is not None:
            start = prior
        elif known.any():
            start = float(value[known].mean())
        else:
            start = float(x[seen].mean()) if seen.any() else 0.0
        base = np.where(known, value, start)
        return np.where(seen, decay * base + (1 - decay) * np.where(seen, x, 0.0), value)

    def _update(self, fb: Feedback) -> None:
        x = fb.get(self.signal)
        seen = np.isfinite(x) & (fb.counts > 0)
        self.value = self._ema(self.value, x, seen, self.decay, self.prior)
        self.pulls = self.pulls + seen
        self._policy = self._compute()

    def _start_from(self, learnability: np.ndarray, weights: np.ndarray) -> bool:
        """Each source's value starts at its expected mean |advantage| (`ADV_PER_INFORMATIVE`
        times its learnability) as if seen once: the first steps move it as they would a value
        learnt from one step."""
        self.value = ADV_PER_INFORMATIVE * learnability
        self.pulls = np.ones(self.n_sources)
        self._policy = self._compute()
        return True

    def _state(self) -> dict:
        return {"value": self.value.copy(), "pulls": self.pulls.copy()}

    def _load_state(self, st: dict) -> None:
        self.value = np.asarray(st["value"], dtype=np.float64).copy()
        self.pulls = np.asarray(st["pulls"], dtype=np.float64).copy()
