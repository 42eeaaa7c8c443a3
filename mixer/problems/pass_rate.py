"""Predicted pass rates of problems for the policy being trained: the curated difficulty as the
prior, an online ability per source, and each problem's own attempts as its posterior.

Model, on the logit scale of the curation's item-response fit (`filters.stages.difficulty.irt`, where a
model of ability theta passes a problem of logit difficulty b with probability sigmoid(theta - b)):

    logit P(pass problem j of source s) = c_s - a * b_j + r_j  [+ f(z_j)]  [+ u_{s,k}]

- b_j: the curated logit difficulty (`unit_to_logit(difficulty)`); a problem without one takes
  its source's mean, with the source's spread as its uncertainty.
- c_s, a: the policy's ability on source s and the slope of the curated scale for this policy,
  fitted after every update by a logistic regression on the recent groups (weights halve every
  `half_life` updates, so the fit follows the policy as it learns), with weak Gaussian priors
  (a ~ N(1, 0.5^2): on a calibrated scale the slope is 1; a prior that does not predict this
  policy's successes gets a slope near 0 and stops mattering).
- r_j: what problem j does differently from the prediction, N(0, std_j^2 + tau^2) before its
  first attempt (std_j the curated uncertainty, tau the policy's own deviation from the models the
  difficulty was measured on), then its Laplace posterior from its own attempts. Its variance
  grows by `drift` per update, so old evidence fades and problems believed solved or hopeless
  become worth re-probing.
- u_{s,k} (only with `bins` > 0): what the policy does now on the k-th curated-difficulty bin of
  source s (quantile bins of b_j inside the source) beyond the line c_s - a * b, fitted with c_s
  and a on the same recency-weighted groups, with a N(0, bin_std^2) prior. A problem not attempted
  recently borrows its neighbours' current rate on the difficulty scale through it, where its own
  r_j only says how it differed from its bin when it was last seen. Problems marked
  `never_solved` (no ranking model passed them: their difficulty is a bound, see
  `mixer.problems.prior`) form a bin of their own in each source, whatever `bins` is, so that
  what the first of them show moves the others of their source: they die or come alive together.
- f(z_j) (only with `signal=True`): a signal of the policy now, given per problem
  (`observe_signal`; e.g. the policy's log-likelihood of a reference solution), standardised by
  the first values given, through a piecewise-linear curve g_0 z + sum_i g_i (z - knot_i)+ whose
  coefficients are fitted with c_s and a on the same groups (priors N(0, 3^2)). Each group keeps
  the signal its problem had when drawn; a problem never scored takes its source's mean signal.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from filters.stages.difficulty.irt import unit_to_logit
from mixer.problems.prior import TAU, checked_unit
from mixer.settings import resolve

__all__ = ["PassRateModel", "PassRateSettings", "prior_from_unit"]

_PRUNE = 1e-2  # buffer rows whose weight fell below this are dropped
# E[f(z)], z ~ N(m, v) = sum_i w_i f(m + sqrt(2 v) x_i) / sqrt(pi)
_GH_X, _GH_W = np.polynomial.hermite.hermgauss(32)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _logit(p: float) -> float:
    return float("-inf") if p <= 0 else float("inf") if p >= 1 else float(np.log(p / (1 - p)))


def _norm_cdf(x: np.ndarray) -> np.ndarray:
    """Standard normal CDF (Abramowitz and Stegun 7.1.26 for erf, error below 2e-7), vectorised."""
    z = np.abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * (1.0 + np.sign(x) * erf)


def prior_from_unit(
    difficulty: np.ndarray | None, difficulty_std: np.ndarray | None, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """codemix's [0, 1] `difficulty` / `difficulty_std` columns as logit difficulty and std (NaN where
    unknown). Values outside [0, 1] or negative stds raise ValueError."""
    b = np.full(n, np.nan)
    s = np.full(n, np.nan)
    if difficulty is None:
        return b, s
    d, sd = checked_unit(difficulty, difficulty_std, n)
    ok = np.isfinite(d)
    b[ok], s_ok = unit_to_logit(d[ok], np.where(np.isfinite(sd[ok]), sd[ok], np.nan))
    s[ok] = s_ok
    return b, s


@dataclass(frozen=True)
class PassRateSettings:
    """`PassRateModel`'s knobs, validated once.

    half_life: updates after which a group's weight in the ability fit has halved.
    drift: variance (logit^2) a problem's own estimate loses per update.
    tau: the policy's own deviation from the curated difficulty (logit std), added to every prior.
    default_std: uncertainty of a difficulty given without a std.
    no_prior_std: a problem's uncertainty when nothing in the whole set has a difficulty.
    min_std, max_std: the range a problem's prior std is clipped to.
    ability_prior, slope_prior: (mean, std) of c_s and of a; None: (0, 1) and (1, 0.25) with a
        curated difficulty (the policy starts near the models that ranked the build, on their
        scale), (0, 3) and (1, 0.5) without one.
    bins: curated-difficulty bins per source with their own offset u (0: none, the default).
    bin_std: the prior std of each bin's offset (logit).
    signal_prior: (mean, std) of the signal's slope g_0, per standard deviation of the signal.
    signal_knots: where, in standard deviations of the first signal values given, the
        calibration's slope may change: the signal enters as g_0 z + sum_i g_i (z - knot_i)+, a
        piecewise-linear curve fitted to the rewards, since a likelihood is not a pass logit
        (log p flattens near p = 1 where the logit does not); the g_i have prior
        N(0, signal_prior std^2).
    """

    half_life: float = 10.0
    drift: float = 0.02
    tau: float = TAU
    default_std: float = 1.0
    no_prior_std: float = 2.0
    min_std: float = 0.3
    max_std: float = 3.0
    ability_prior: tuple[float, float] | None = None
    slope_prior: tuple[float, float] | None = None
    bins: int = 0
    bin_std: float = 1.0
    signal_prior: tuple[float, float] = (0.0, 3.0)
    signal_knots: tuple[float, ...] = (-1.0, 0.0, 1.0)

    def __post_init__(self) -> None:
        h, d, t, lo, hi = self.half_life, self.drift, self.tau, self.min_std, self.max_std
        if h <= 0 or d < 0 or t < 0 or lo <= 0 or hi < lo:
            raise ValueError("need half_life > 0, drift >= 0, tau >= 0 and 0 < min_std <= max_std")
        if isinstance(self.bins, bool) or int(self.bins) != self.bins or self.bins < 0:
            raise ValueError(f"bins must be an integer >= 0, got {self.bins!r}")
        if not self.bin_std > 0:
            raise ValueError(f"bin_std must be > 0, got {self.bin_std}")
        if not float(self.signal_prior[1]) > 0:
            raise ValueError(f"signal_prior's std must be > 0, got {self.signal_prior[1]}")
        if not np.isfinite(np.asarray(self.signal_knots, dtype=np.float64)).all():
            raise ValueError("signal_knots must be finite")


class PassRateModel:
    """See the module docstring. Problems are slots 0..n-1; `sources[j]` is slot j's source id.

    Args:
        difficulty, difficulty_std: logit difficulty and its std per slot (NaN where unknown), or
            None for no prior at all (every problem starts at its source's mean ability).
        signal: whether the model takes a per-problem signal of the policy now (`observe_signal`).
        never_solved: bool per slot, problems no ranking model passed (their own offset per source).
        settings: a `PassRateSettings`, or its fields as keywords.
    """

    def __init__(
        self,
        sources: np.ndarray,
        n_sources: int,
        difficulty: np.ndarray | None = None,
        difficulty_std: np.ndarray | None = None,
        signal: bool = False,
        never_solved: np.ndarray | None = None,
        settings: PassRateSettings | None = None,
        **kw: Any,
    ) -> None:
        self.settings = st = resolve(PassRateSettings, settings, kw)
        if kw:
            raise TypeError(f"PassRateModel got unexpected keywords: {', '.join(kw)}")
        self.sources = np.asarray(sources, dtype=np.int64).reshape(-1)
        self.n_sources = int(n_sources)
        n = len(self.sources)
        if n == 0:
            raise ValueError("no problems")
        self.half_life, self.drift, self.tau = float(st.half_life), float(st.drift), float(st.tau)
        self.signal_prior = (float(st.signal_prior[0]), float(st.signal_prior[1]))
        b = np.full(n, np.nan) if difficulty is None else np.asarray(difficulty, np.float64).copy()
        s = (
            np.full(n, np.nan)
            if difficulty_std is None
            else np.asarray(difficulty_std, np.float64).copy()
        )
        if b.shape != (n,) or s.shape != (n,):
            raise ValueError(f"difficulty and difficulty_std need one value per problem ({n})")
        self.has_prior = bool(np.isfinite(b).any())
        ability_prior, slope_prior = st.ability_prior, st.slope_prior
        if ability_prior is None:
            ability_prior = (0.0, 1.0) if self.has_prior else (0.0, 3.0)
        if slope_prior is None:
            slope_prior = (1.0, 0.25) if self.has_prior else (1.0, 0.5)
        self.ability_prior = (float(ability_prior[0]), float(ability_prior[1]))
        self.slope_prior = (float(slope_prior[0]), float(slope_prior[1]))
        ns = np.zeros(n, dtype=bool) if never_solved is None else np.asarray(never_solved, bool)
        if ns.shape != (n,):
            raise ValueError(f"never_solved needs one value per problem ({n})")
        self.never_solved = ns.copy()
        self.b, s = self._fill_unknown(b, s, st.default_std, st.no_prior_std)
        self.bins, self.bin_std = int(st.bins), float(st.bin_std)
        self.bin, self.n_bins = self._bin_slots(self.b, ns)
        self.u = np.zeros(self.n_bins)
        self.prior_var = np.clip(s, st.min_std, st.max_std) ** 2 + self.tau**2
        self.m = np.zeros(n)  # posterior mean of r_j
        self.v = self.prior_var.copy()  # its variance when last updated
        self.last = np.zeros(n)  # update count at that time
        self.t = 0
        # the signal: raw values (NaN: never given), standardised by the first values given
        self.has_signal = bool(signal)
        self.sig = np.full(n, np.nan)
        self.sig_center, self.sig_scale = 0.0, 0.0  # scale 0: no signal seen yet
        self.knots = np.asarray(st.signal_knots, dtype=np.float64).reshape(-1)
        n_g = 1 + len(self.knots) if self.has_signal else 0
        self.g = np.zeros(n_g)
        if n_g:
            self.g[0] = self.signal_prior[0]
        # parameters: c (one per source), a, [g], [u (one per bin)]
        self._ia = self.n_sources
        self._ig = self._ia + 1  # the signal's coefficients: _ig .. _iu - 1
        self._iu = self._ia + 1 + n_g
        self.c = np.full(self.n_sources, self.ability_prior[0])
        self.a = self.slope_prior[0] if self.has_prior else 1.0
        self.cov = np.diag(self._prior()[1] ** 2)
        # recent groups for the ability fit: source, b, offset r_j at the time, successes, attempts,
        # t, then the bin (with bins) and the standardised signal at the time (with a signal)
        self._cb = 6 if self.n_bins else -1
        self._cz = 6 + int(bool(self.n_bins)) if self.has_signal else -1
        self._cols = 6 + int(bool(self.n_bins)) + int(self.has_signal)
        self.buf = np.zeros((0, self._cols))

    def _fill_unknown(
        self, b: np.ndarray, s: np.ndarray, default_std: float, no_prior_std: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """A problem without a difficulty takes its source's mean, with the source's spread as its
        std (the whole set's where its source has none; 0 and `no_prior_std` without any); a
        difficulty without a std gets `default_std`."""
        known = np.isfinite(b)
        s = np.where(known & ~np.isfinite(s), default_std, s)
        glob_mean, glob_sd = 0.0, float(no_prior_std)
        if known.any():
            glob_mean = float(b[known].mean())
            glob_sd = float(np.sqrt(b[known].var() + np.mean(s[known] ** 2)))
        for src in range(self.n_sources):
            m = self.sources == src
            k = m & known
            if k.any():
                mean, sd = float(b[k].mean()), float(np.sqrt(b[k].var() + np.mean(s[k] ** 2)))
            else:
                mean, sd = glob_mean, glob_sd
            miss = m & ~known
            b[miss], s[miss] = mean, sd
        return b, s

    def _bin_slots(self, b: np.ndarray, never_solved: np.ndarray) -> tuple[np.ndarray, int]:
        """Each slot's offset (-1: none) and their count: `bins` quantile bins of b per source
        (`bins` > 0) and one bin per source for its never-solved problems."""
        slot_bin = np.full(len(b), -1, dtype=np.int64)
        n_bins = 0
        for src in range(self.n_sources):
            m = (self.sources == src) & ~never_solved
            if self.bins and m.any():
                q = np.quantile(b[m], np.linspace(0.0, 1.0, self.bins + 1)[1:-1])
                local = np.searchsorted(np.unique(q), b[m], side="right")
                used, local = np.unique(local, return_inverse=True)  # no empty bins
                slot_bin[m] = n_bins + local
                n_bins += len(used)
            m_ns = (self.sources == src) & never_solved
            if m_ns.any():
                slot_bin[m_ns] = n_bins
                n_bins += 1
        return slot_bin, n_bins

    def _prior(self) -> tuple[np.ndarray, np.ndarray]:
        """Prior mean and std of every parameter, in order c, a, g, u (std 0: the slope stays fixed
        when there is no curated difficulty)."""
        n_g = len(self.g)
        mean = np.concatenate(
            [
                np.full(self.n_sources, self.ability_prior[0]),
                [self.slope_prior[0]],
                [self.signal_prior[0]] * min(n_g, 1) + [0.0] * max(n_g - 1, 0),
                np.zeros(self.n_bins),
            ]
        )
        sd = np.array(
            [self.ability_prior[1]] * self.n_sources
            + [self.slope_prior[1] if self.has_prior else 0.0]
            + [self.signal_prior[1]] * n_g
            + [self.bin_std] * self.n_bins
        )
        return mean, sd

    def _design(
        self, src: np.ndarray, b: np.ndarray, z: np.ndarray | None, kb: np.ndarray | None
    ) -> np.ndarray:
        """Rows of the linear predictor c_s - a b + g z + u_k, one per (source, b, z, bin)."""
        rows = np.arange(len(src))
        X = np.zeros((len(src), self._iu + self.n_bins))
        X[rows, src] = 1.0
        X[:, self._ia] = -b
        if self.has_signal and z is not None:
            X[:, self._ig : self._iu] = self._signal_features(z)
        if self.n_bins and kb is not None:
            has = kb >= 0
            X[rows[has], self._iu + kb[has]] = 1.0
        return X

    def _signal_features(self, z: np.ndarray) -> np.ndarray:
        """The signal's columns of the design: z and its hinges (z - knot)+."""
        return np.column_stack([z, np.maximum(z[:, None] - self.knots[None, :], 0.0)])

    def _theta(self) -> np.ndarray:
        return np.concatenate([self.c, [self.a], self.g, self.u]).astype(np.float64)

    # ---- the signal --------------------------------------------------------------------------
    def observe_signal(self, j: np.ndarray, values: np.ndarray) -> None:
        """Record a signal of the policy *now* for slots `j` (higher: more likely to pass; e.g. the
        policy's mean log-likelihood of a reference solution). NaN leaves a slot's last value.
        The first finite values given fix the standardisation (their mean and std)."""
        if not self.has_signal:
            raise ValueError("this model was made without a signal (signal=True)")
        j = np.asarray(j, dtype=np.int64).reshape(-1)
        x = np.asarray(values, dtype=np.float64).reshape(-1)
        if x.shape != j.shape:
            raise ValueError(f"{x.size} signal values for {j.size} problems")
        if np.isinf(x).any():
            raise ValueError("signal values must be finite (NaN for unknown)")
        ok = np.isfinite(x)
        if not ok.any():
            return
        if self.sig_scale == 0.0:
            sd = float(x[ok].std())
            self.sig_center, self.sig_scale = float(x[ok].mean()), sd if sd > 1e-12 else 1.0
        self.sig[j[ok]] = x[ok]

    def _z(self, j: np.ndarray) -> np.ndarray:
        """The standardised signal of slots `j`; a slot without one takes its source's mean."""
        if self.sig_scale == 0.0:
            return np.zeros(len(j))
        z = (self.sig - self.sig_center) / self.sig_scale
        known = np.isfinite(z)
        S = self.n_sources
        cnt = np.bincount(self.sources[known], minlength=S)
        tot = np.bincount(self.sources[known], weights=z[known], minlength=S)
        fill = np.divide(tot, cnt, out=np.zeros(S), where=cnt > 0)
        zj = z[j]
        return np.where(np.isfinite(zj), zj, fill[self.sources[j]])

    # ---- prediction --------------------------------------------------------------------------
    def _var_now(self, j: np.ndarray) -> np.ndarray:
        return np.minimum(self.v[j] + self.drift * (self.t - self.last[j]), self.prior_var[j])

    def _line(self, j: np.ndarray) -> np.ndarray:
        """The design rows of slots `j`."""
        return self._design(
            self.sources[j],
            self.b[j],
            self._z(j) if self.has_signal else None,
            self.bin[j] if self.n_bins else None,
        )

    def predict(self, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of the pass logit of slots `j` (ability and slope uncertainty included).

        The design row x_j of `_design` is sparse (its source, -b_j, the signal terms, its bin), so
        x_j' cov x_j is summed from the few covariance entries it touches: on a pool of a million
        problems this is several times faster than the dense quadratic form."""
        j = np.asarray(j, dtype=np.int64)
        s, b, C, ia = self.sources[j], self.b[j], self.cov, self._ia
        mean = self.c[s] - self.a * b + self.m[j]
        var = self._var_now(j) + C[s, s] + b * b * C[ia, ia] - 2 * b * C[s, ia]
        if self.has_signal:
            F = self._signal_features(self._z(j))
            g = np.arange(self._ig, self._iu)
            mean = mean + F @ self.g
            cross = C[s[:, None], g[None, :]] - b[:, None] * C[ia, g][None, :]
            var = var + np.einsum("ij,jk,ik->i", F, C[np.ix_(g, g)], F) + 2 * (F * cross).sum(1)
        if self.n_bins:
            k = self.bin[j]
            has = k >= 0
            k = np.where(has, k, 0)
            iu = self._iu + k
            extra = C[iu, iu] + 2 * C[s, iu] - 2 * b * C[ia, iu]
            if self.has_signal:
                extra = extra + 2 * (F * C[iu[:, None], g[None, :]]).sum(1)
            mean = mean + np.where(has, self.u[k], 0.0)
            var = var + np.where(has, extra, 0.0)
        return mean, np.maximum(var, 0.0)

    def own_var(self, j: np.ndarray) -> np.ndarray:
        """The part of the pass-logit variance of slots `j` (`predict`) that is the problem's own
        offset r_j; the rest is what problems share (their source's ability, the slope, their
        bin, the signal's curve), which a source's next groups teach about all of its problems."""
        return self._var_now(np.asarray(j, dtype=np.int64))

    # Expectations under logit p ~ N(mean, var), in closed form: E[sigmoid(z)] ~ sigmoid(k mean)
    # with k = 1 / sqrt(1 + pi var / 8) (the probit approximation), and its derivative in the mean
    # for E[sigmoid'(z)] = E[p (1 - p)]; both within about 5% of quadrature, at one sigmoid each.
    def _shrunk(self, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mean, var = self.predict(j)
        k = 1.0 / np.sqrt(1.0 + np.pi * var / 8.0)
        return k, _sigmoid(k * mean)

    def sample_pass_rate(self, j: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One draw of the pass rate of slots `j` from the posterior (each slot independently)."""
        mean, var = self.predict(np.asarray(j, dtype=np.int64))
        return _sigmoid(mean + np.sqrt(var) * rng.standard_normal(len(mean)))

    def pass_rate(self, j: np.ndarray) -> np.ndarray:
        """Expected pass rate of slots `j` under the current posterior."""
        return self._shrunk(j)[1]

    def learnability(self, j: np.ndarray) -> np.ndarray:
        """E[p (1 - p)]: the expected reward variance of one completion (0 for a problem surely
        solved or surely failed, 1/4 at p = 1/2), the quantity GRPO's signal grows with."""
        k, p = self._shrunk(j)
        return k * p * (1.0 - p)

    def learnability_low(self, j: np.ndarray) -> np.ndarray:
        """E[p (1 - p)^2]: the reward variance weighted by the failure rate (peaks at p = 1/3), so
        problems still mostly failed, where GRPO learns from rare successes, count more than
        nearly solved ones. By Gauss-Hermite quadrature (32 nodes) over the logit posterior."""
        mean, var = self.predict(np.asarray(j, dtype=np.int64))
        z = mean[:, None] + np.sqrt(2.0 * var)[:, None] * _GH_X[None, :]
        p = _sigmoid(z)
        return (p * (1.0 - p) ** 2) @ _GH_W / math.sqrt(math.pi)

    def in_band(self, j: np.ndarray, lo: float, hi: float) -> np.ndarray:
        """Posterior probability that the pass rate of slots `j` lies in [lo, hi] (exact)."""
        mean, var = self.predict(j)
        sd = np.sqrt(np.maximum(var, 1e-12))
        z_lo = (_logit(lo) - mean) / sd
        z_hi = (_logit(hi) - mean) / sd
        return np.maximum(_norm_cdf(z_hi) - _norm_cdf(z_lo), 0.0)

    # ---- learning ----------------------------------------------------------------------------
    def observe(self, j: np.ndarray, successes: np.ndarray, attempts: np.ndarray) -> None:
        """One update: groups at slots `j` had `successes` (summed [0, 1] rewards) of `attempts`."""
        j = np.asarray(j, dtype=np.int64).reshape(-1)
        k = np.asarray(successes, dtype=np.float64).reshape(-1)
        n = np.asarray(attempts, dtype=np.float64).reshape(-1)
        self.t += 1
        use = n > 0
        j, k, n = j[use], k[use], n[use]
        if j.size:
            cols = [self.sources[j], self.b[j], self.m[j], k, n, np.full(j.size, self.t)]
            if self.n_bins:
                cols.append(self.bin[j])
            if self.has_signal:
                cols.append(self._z(j))
            self.buf = np.concatenate([self.buf, np.column_stack(cols)])
            self._update_problems(j, k, n)
        age = self.t - self.buf[:, 5]
        self.buf = self.buf[0.5 ** (age / self.half_life) >= _PRUNE]
        self._fit_ability()

    def _update_problems(self, j: np.ndarray, k: np.ndarray, n: np.ndarray) -> None:
        # a problem twice in one update: fold its groups together first
        uj, inv = np.unique(j, return_inverse=True)
        k = np.bincount(inv, weights=k)
        n = np.bincount(inv, weights=n)
        v0 = self._var_now(uj)
        m0 = self.m[uj]
        z0 = self._line(uj) @ self._theta()
        r = m0.copy()
        for _ in range(4):  # Newton on the posterior mode of r_j (one-dimensional each)
            p = _sigmoid(z0 + r)
            g = k - n * p - (r - m0) / v0
            h = n * p * (1 - p) + 1.0 / v0
            r = r + np.clip(g / h, -2.0, 2.0)
        p = _sigmoid(z0 + r)
        self.m[uj] = r
        self.v[uj] = 1.0 / (n * p * (1 - p) + 1.0 / v0)
        self.last[uj] = self.t

    def _fit_ability(self) -> None:
        """MAP of (c, a, g, u) by Newton on the recency-weighted groups in the buffer; the inverse
        Hessian is their covariance. A parameter with prior std 0 (the slope without a curated
        difficulty) stays fixed."""
        buf = self.buf
        X = self._design(
            buf[:, 0].astype(np.int64),
            buf[:, 1],
            buf[:, self._cz] if self.has_signal else None,
            buf[:, self._cb].astype(np.int64) if self.n_bins else None,
        )
        off, k, n = buf[:, 2], buf[:, 3], buf[:, 4]
        w = 0.5 ** ((self.t - buf[:, 5]) / self.half_life)
        mu, sd = self._prior()
        free = sd > 0
        prec = np.where(free, 1.0 / np.where(free, sd, 1.0) ** 2, 0.0)
        theta = self._theta()
        H = np.eye(len(theta))
        for _ in range(3):  # warm-started from the last fit: a few Newton steps suffice
            p = _sigmoid(X @ theta + off)
            grad = X.T @ (w * (k - n * p)) - prec * (theta - mu)
            H = (X * (w * n * p * (1 - p))[:, None]).T @ X + np.diag(prec)
            H[~free, :] = H[:, ~free] = 0.0
            H[~free, ~free] = 1.0
            grad[~free] = 0.0
            step = np.clip(np.linalg.solve(H, grad), -2.0, 2.0)
            theta = theta + step
            if self.has_prior:
                theta[self._ia] = max(theta[self._ia], 0.0)
        S = self.n_sources
        self.c, self.a = theta[:S].copy(), float(theta[self._ia])
        self.g = theta[self._ig : self._iu].copy()
        self.u = theta[self._iu :].copy()
        cov = np.linalg.inv(H)
        cov[~free, :] = cov[:, ~free] = 0.0
        self.cov = cov

    # ---- state -------------------------------------------------------------------------------
    def state(self) -> dict:
        return (
            {
                "m": self.m.copy(),
                "v": self.v.copy(),
                "last": self.last.copy(),
                "t": self.t,
                "c": self.c.copy(),
                "a": self.a,
                "cov": self.cov.copy(),
                "buf": self.buf.copy(),
            }
            | ({"u": self.u.copy()} if self.n_bins else {})
            | (
                {
                    "g": self.g.copy(),
                    "sig": self.sig.copy(),
                    "sig_center": self.sig_center,
                    "sig_scale": self.sig_scale,
                }
                if self.has_signal
                else {}
            )
        )

    def load_state(self, st: Mapping[str, Any]) -> None:
        n = len(self.sources)
        if np.asarray(st["m"]).shape != (n,):
            raise ValueError(f"state is for {np.asarray(st['m']).shape[0]} problems, not {n}")
        if ("u" in st) != bool(self.n_bins) or (
            self.n_bins and np.asarray(st["u"]).shape != (self.n_bins,)
        ):
            raise ValueError(
                f"state is for another number of difficulty bins than this model's {self.n_bins}"
            )
        if ("sig" in st) != self.has_signal:
            raise ValueError(
                "state is from a model "
                + ("without" if self.has_signal else "with")
                + " a signal (a scorer); make the sampler the way the saved one was made"
            )
        self.m = np.asarray(st["m"], dtype=np.float64).copy()
        self.v = np.asarray(st["v"], dtype=np.float64).copy()
        self.last = np.asarray(st["last"], dtype=np.float64).copy()
        self.t = int(st["t"])
        self.c = np.asarray(st["c"], dtype=np.float64).copy()
        self.a = float(st["a"])
        self.cov = np.asarray(st["cov"], dtype=np.float64).copy()
        self.buf = np.asarray(st["buf"], dtype=np.float64).reshape(-1, self._cols).copy()
        if self.n_bins:
            self.u = np.asarray(st["u"], dtype=np.float64).copy()
        if self.has_signal:
            g = np.asarray(st["g"], dtype=np.float64).reshape(-1)
            if g.shape != self.g.shape:
                raise ValueError(
                    f"state is for {g.size - 1} signal knots, not this model's {len(self.knots)}"
                )
            self.g = g.copy()
            self.sig = np.asarray(st["sig"], dtype=np.float64).copy()
            self.sig_center, self.sig_scale = float(st["sig_center"]), float(st["sig_scale"])
