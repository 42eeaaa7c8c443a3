"""Predicted pass rates of problems for the policy being trained: the curated difficulty as the
prior, an online ability per source, and each problem's own attempts as its posterior.

Model, on the logit scale of the curation's item-response fit (`filters.difficulty.irt`, where a
model of ability theta passes a problem of logit difficulty b with probability sigmoid(theta - b)):

    logit P(pass problem j of source s) = c_s - a * b_j + r_j

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
  r_j only says how it differed from its bin when it was last seen.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from filters.difficulty.irt import unit_to_logit

__all__ = ["PassRateModel", "prior_from_unit"]

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
    d = np.asarray(difficulty, dtype=np.float64).reshape(-1)
    if d.shape[0] != n:
        raise ValueError(f"difficulty has {d.shape[0]} values for {n} problems")
    ok = np.isfinite(d)
    if ((d[ok] < 0) | (d[ok] > 1)).any():
        raise ValueError(
            "difficulty must lie in [0, 1] (codemix's scale; NaN when unknown); pass "
            "difficulty_scale='logit' for item-response logits"
        )
    sd = np.full(n, np.nan) if difficulty_std is None else np.asarray(difficulty_std, np.float64)
    if sd.shape[0] != n:
        raise ValueError(f"difficulty_std has {sd.shape[0]} values for {n} problems")
    if (sd[np.isfinite(sd)] < 0).any():
        raise ValueError("difficulty_std must be >= 0 (NaN when unknown)")
    b[ok], s_ok = unit_to_logit(d[ok], np.where(np.isfinite(sd[ok]), sd[ok], np.nan))
    s[ok] = s_ok
    return b, s


class PassRateModel:
    """See the module docstring. Problems are slots 0..n-1; `sources[j]` is slot j's source id.

    Args:
        difficulty, difficulty_std: logit difficulty and its std per slot (NaN where unknown), or
            None for no prior at all (every problem starts at its source's mean ability).
        half_life: updates after which a group's weight in the ability fit has halved.
        drift: variance (logit^2) a problem's own estimate loses per update.
        tau: the policy's own deviation from the curated difficulty (logit std), added to every prior.
        default_std: uncertainty of a difficulty given without a std.
        no_prior_std: a problem's uncertainty when nothing in the whole set has a difficulty.
        ability_prior, slope_prior: (mean, std) of c_s and of a.
        bins: curated-difficulty bins per source with their own offset u (0: none, the default).
        bin_std: the prior std of each bin's offset (logit).
    """

    def __init__(
        self,
        sources: np.ndarray,
        n_sources: int,
        difficulty: np.ndarray | None = None,
        difficulty_std: np.ndarray | None = None,
        half_life: float = 10.0,
        drift: float = 0.02,
        tau: float = 1.0,
        default_std: float = 1.0,
        no_prior_std: float = 2.0,
        min_std: float = 0.3,
        max_std: float = 3.0,
        ability_prior: tuple[float, float] = (0.0, 3.0),
        slope_prior: tuple[float, float] = (1.0, 0.5),
        bins: int = 0,
        bin_std: float = 1.0,
    ) -> None:
        self.sources = np.asarray(sources, dtype=np.int64).reshape(-1)
        self.n_sources = int(n_sources)
        n = len(self.sources)
        if n == 0:
            raise ValueError("no problems")
        if half_life <= 0 or drift < 0 or tau < 0 or min_std <= 0 or max_std < min_std:
            raise ValueError("need half_life > 0, drift >= 0, tau >= 0 and 0 < min_std <= max_std")
        if isinstance(bins, bool) or int(bins) != bins or bins < 0:
            raise ValueError(f"bins must be an integer >= 0, got {bins!r}")
        if not bin_std > 0:
            raise ValueError(f"bin_std must be > 0, got {bin_std}")
        self.half_life, self.drift, self.tau = float(half_life), float(drift), float(tau)
        self.ability_prior = (float(ability_prior[0]), float(ability_prior[1]))
        self.slope_prior = (float(slope_prior[0]), float(slope_prior[1]))
        b = np.full(n, np.nan) if difficulty is None else np.asarray(difficulty, np.float64).copy()
        s = (
            np.full(n, np.nan)
            if difficulty_std is None
            else np.asarray(difficulty_std, np.float64).copy()
        )
        if b.shape != (n,) or s.shape != (n,):
            raise ValueError(f"difficulty and difficulty_std need one value per problem ({n})")
        self.has_prior = bool(np.isfinite(b).any())
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
        self.b = b
        self.bins, self.bin_std = int(bins), float(bin_std)
        self.bin = np.zeros(n, dtype=np.int64)  # slot -> its (source, difficulty bin) offset
        self.n_bins = 0
        if self.bins:
            for src in range(self.n_sources):
                m = self.sources == src
                if not m.any():
                    continue
                q = np.quantile(b[m], np.linspace(0.0, 1.0, self.bins + 1)[1:-1])
                local = np.searchsorted(np.unique(q), b[m], side="right")
                used, local = np.unique(local, return_inverse=True)  # no empty bins
                self.bin[m] = self.n_bins + local
                self.n_bins += len(used)
        self.u = np.zeros(self.n_bins)
        self.prior_var = np.clip(s, min_std, max_std) ** 2 + self.tau**2
        self.m = np.zeros(n)  # posterior mean of r_j
        self.v = self.prior_var.copy()  # its variance when last updated
        self.last = np.zeros(n)  # update count at that time
        self.t = 0
        self.c = np.full(self.n_sources, self.ability_prior[0])
        self.a = self.slope_prior[0] if self.has_prior else 1.0
        self.cov = np.diag(
            [self.ability_prior[1] ** 2] * self.n_sources
            + [self.slope_prior[1] ** 2 if self.has_prior else 0.0]
            + [self.bin_std**2] * self.n_bins
        )
        # recent groups for the ability fit: source, b, offset r_j at the time, successes, attempts,
        # t (and, with bins, the bin)
        self._cols = 7 if self.n_bins else 6
        self.buf = np.zeros((0, self._cols))

    # ---- prediction --------------------------------------------------------------------------
    def _var_now(self, j: np.ndarray) -> np.ndarray:
        return np.minimum(self.v[j] + self.drift * (self.t - self.last[j]), self.prior_var[j])

    def predict(self, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of the pass logit of slots `j` (ability and slope uncertainty included)."""
        j = np.asarray(j, dtype=np.int64)
        s, b = self.sources[j], self.b[j]
        mean = self.c[s] - self.a * b + self.m[j]
        ia = self.n_sources
        var = self._var_now(j) + self.cov[s, s] + b**2 * self.cov[ia, ia] - 2 * b * self.cov[s, ia]
        if self.n_bins:
            k, iu = self.bin[j], ia + 1 + self.bin[j]
            mean = mean + self.u[k]
            var = var + self.cov[iu, iu] + 2 * self.cov[s, iu] - 2 * b * self.cov[ia, iu]
        return mean, np.maximum(var, 0.0)

    # Expectations under logit p ~ N(mean, var), in closed form: E[sigmoid(z)] ~ sigmoid(k mean)
    # with k = 1 / sqrt(1 + pi var / 8) (the probit approximation), and its derivative in the mean
    # for E[sigmoid'(z)] = E[p (1 - p)]; both within about 5% of quadrature, at one sigmoid each.
    def _shrunk(self, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mean, var = self.predict(j)
        k = 1.0 / np.sqrt(1.0 + np.pi * var / 8.0)
        return k, _sigmoid(k * mean)

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
            rows = np.column_stack(cols + ([self.bin[j]] if self.n_bins else []))
            self.buf = np.concatenate([self.buf, rows])
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
        z0 = self.c[self.sources[uj]] - self.a * self.b[uj]
        if self.n_bins:
            z0 = z0 + self.u[self.bin[uj]]
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
        S, B = self.n_sources, self.n_bins
        ia = S  # the slope's index; the bin offsets follow it
        mc, sc = self.ability_prior
        ma, sa = self.slope_prior
        fit_slope = self.has_prior
        buf = self.buf
        src = buf[:, 0].astype(np.int64)
        b, off, k, n = buf[:, 1], buf[:, 2], buf[:, 3], buf[:, 4]
        kb = buf[:, 6].astype(np.int64) if B else np.zeros(0, np.int64)
        w = 0.5 ** ((self.t - buf[:, 5]) / self.half_life)
        c, a, u = self.c.copy(), self.a, self.u.copy()
        H = np.eye(S + 1 + B)
        for _ in range(3):  # warm-started from the last fit: a few Newton steps suffice
            z = c[src] - a * b + off
            if B:
                z = z + u[kb]
            p = _sigmoid(z)
            res = w * (k - n * p)
            cur = w * n * p * (1 - p)
            g = np.zeros(S + 1 + B)
            g[:S] = np.bincount(src, weights=res, minlength=S) - (c - mc) / sc**2
            H = np.zeros((S + 1 + B, S + 1 + B))
            H[np.arange(S), np.arange(S)] = np.bincount(src, weights=cur, minlength=S) + 1 / sc**2
            if fit_slope:
                g[ia] = -(res * b).sum() - (a - ma) / sa**2
                cross = -np.bincount(src, weights=cur * b, minlength=S)
                H[:S, ia] = H[ia, :S] = cross
                H[ia, ia] = (cur * b * b).sum() + 1 / sa**2
            else:
                H[ia, ia] = 1.0
            if B:
                iu = ia + 1 + np.arange(B)
                g[iu] = np.bincount(kb, weights=res, minlength=B) - u / self.bin_std**2
                H[iu, iu] = np.bincount(kb, weights=cur, minlength=B) + 1 / self.bin_std**2
                np.add.at(H, (src, ia + 1 + kb), cur)  # each bin lies in one source
                np.add.at(H, (ia + 1 + kb, src), cur)
                if fit_slope:
                    H[ia, iu] = H[iu, ia] = -np.bincount(kb, weights=cur * b, minlength=B)
            step = np.linalg.solve(H, g)
            step = np.clip(step, -2.0, 2.0)
            c = c + step[:S]
            a = max(a + step[ia], 0.0) if fit_slope else a
            u = u + step[ia + 1 :]
        self.c, self.a, self.u = c, float(a), u
        cov = np.linalg.inv(H)
        if not fit_slope:
            cov[ia, :] = cov[:, ia] = 0.0
        self.cov = cov

    # ---- state -------------------------------------------------------------------------------
    def state(self) -> dict:
        return {
            "m": self.m.copy(),
            "v": self.v.copy(),
            "last": self.last.copy(),
            "t": self.t,
            "c": self.c.copy(),
            "a": self.a,
            "cov": self.cov.copy(),
            "buf": self.buf.copy(),
        } | ({"u": self.u.copy()} if self.n_bins else {})

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
