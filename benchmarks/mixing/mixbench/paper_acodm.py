"""ACODM's research variants that lost their benchmarks, kept so that those benchmarks still run
(mix_rl.py, mix_lm.py, mixer_overhead.py): the AC-ODM paper's state (`state="paper"`), its
per-source critic (`allocation="paper"`), its reward (`reward="interference"`) and its cloned
warm-up (`clone_warmup=True`), `ACODM.paper_recipe()` as it was, and the softmax allocation
(`allocation="softmax"`, the first ACODM's, which piled onto one source). They left
`mixer/policies/acodm.py` with issue 52; what measured them: benchmarks/pages/mixer-training.md
(the recipe tables) and mixer-training-history.md. `mixbench.common.build_mixer` builds a
`PaperACODM` for an `acodm` arm whose keywords name one of these.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mixer import ACODM, Feedback
from mixer.policies.acodm import REWARDS, ACODMSettings
from mixer.policies.actor_critic import N_FEATURES
from mixer.policies.baselines import softmax
from mixer.settings import resolve

__all__ = ["PaperACODM", "PaperSettings", "interference_scores", "paper_features", "wants_paper"]

STATES = ("ours", "paper")
ALLOCATIONS = ("proportional", "softmax", "paper")


def _zscore(x: np.ndarray) -> np.ndarray:
    """(x - mean) / std over the finite entries, clipped at 3 (as the paper's `mean_std_norm`);
    0 where x is not finite or fewer than two entries are."""
    ok = np.isfinite(x)
    if ok.sum() < 2:
        return np.zeros(x.shape)
    v = x[ok]
    z = (x - v.mean()) / (v.std(ddof=1) + 1e-8)
    return np.where(ok, np.clip(z, -3.0, 3.0), 0.0)


def interference_scores(sketch: np.ndarray) -> np.ndarray:
    """The AC-ODM paper's reward: per source, sum_{j != i} <g_i, g_j> / mean_k |g_k|, z-scored
    across the sources and clipped at 3. Rows that are not finite (sources not drawn) give NaN."""
    g = np.asarray(sketch, dtype=np.float64)
    ok = np.isfinite(g).all(axis=1)
    out = np.full(g.shape[0], np.nan)
    if ok.sum() < 2:
        return out
    G = g[ok]
    dots = G @ G.T
    s = (dots.sum(axis=1) - np.diag(dots)) / (np.linalg.norm(G, axis=1).mean() + 1e-12)
    out[ok] = _zscore(s)
    return out


def paper_features(
    loss: np.ndarray,
    loss_change: np.ndarray,
    counts: np.ndarray,
    norms: np.ndarray,
    norm_change: np.ndarray,
    progress: float,
) -> np.ndarray:
    """The paper's state as per-source rows (n, 3 + 2K + 1): each source's loss, loss change and
    sample count (each z-scored across sources), then the K weight-matrix norms and their changes
    (each z-scored across the matrices, the same in every row) and the training progress, so that
    nothing depends on the model's size."""
    n = len(loss)
    glob = np.concatenate([_zscore(norms), _zscore(norm_change), [progress]])
    return np.hstack(
        [
            np.stack([_zscore(loss), _zscore(loss_change), _zscore(counts)], axis=1),
            np.broadcast_to(glob, (n, len(glob))),
        ]
    )


@dataclass(frozen=True)
class PaperSettings(ACODMSettings):
    """`ACODMSettings` with the archived variants: `state` ("ours" or "paper"), `n_norms` (the
    weight matrices whose norms the paper's state reads), `allocation` ("proportional",
    "softmax" or "paper"), `clone_warmup`, and the reward "interference"."""

    REWARDS: ClassVar[dict[str, tuple[str, str]]] = {
        **REWARDS,
        "interference": ("grad_sketch", "loss"),
    }

    state: str = "ours"
    n_norms: int = 3
    allocation: str = "proportional"
    clone_warmup: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.state not in STATES:
            raise ValueError(f"state must be one of {STATES}, got {self.state!r}")
        if self.state == "paper" and self.n_norms < 1:
            raise ValueError(f"state='paper' needs n_norms >= 1, got {self.n_norms}")
        if self.allocation not in ALLOCATIONS:
            raise ValueError(f"allocation must be one of {ALLOCATIONS}, got {self.allocation!r}")


_ARCHIVED = {f.name for f in fields(PaperSettings)} - {f.name for f in fields(ACODMSettings)}


def wants_paper(kw: dict[str, Any]) -> bool:
    """Whether ACODM keywords name an archived variant (so only `PaperACODM` takes them)."""
    return bool(_ARCHIVED & set(kw)) or kw.get("reward") == "interference"


class PaperACODM(ACODM):
    """`ACODM` with the archived variants (module docstring); with none chosen it is `ACODM`.

    `allocation="softmax"`: coefficients centred across sources; the critic is Q(s, a) =
    sum_i a_i u_i(s) + v(s), trained DDPG-style on r + gamma Q'(s', mu'(s')) (split exactly per
    source, since the weights sum to one), and the actor ascends Q(s, mu(s)) + entropy H(mu(s)),
    optimum softmax(u / entropy). `allocation="paper"`: one value per source Q_i(s, a) (of the
    source's own state row and weight), trained on the unweighted c_i + gamma Q'_i(s', mu'(s'));
    the actor ascends mean_i Q_i(s, mu(s)). `clone_warmup`: during the warm-up the actor is
    regressed onto the ODM's weights (the paper's behaviour cloning). `state="paper"`: see
    `paper_features` (it needs `Feedback.extra["param_norms"]`, `n_norms` matrices' norms).
    """

    settings_class = PaperSettings
    settings: PaperSettings

    def __init__(
        self,
        n_sources: int,
        settings: PaperSettings | None = None,
        policy_file: str | Path | None = None,
        **kw: Any,
    ) -> None:
        st = resolve(PaperSettings, settings, kw)
        self.state_kind, self.n_norms, self.allocation = st.state, int(st.n_norms), st.allocation
        self.critic_inputs = 1 if st.allocation == "paper" else 0
        super().__init__(n_sources, st, policy_file, **kw)

    @classmethod
    def paper_recipe(cls) -> dict:
        """The AC-ODM paper's settings as keywords: its reward, state and per-source critic, a
        warm-up on ODM (training loss) with the actor cloned to it, gamma 0.95, tau 0.001."""
        return {
            "reward": "interference",
            "state": "paper",
            "allocation": "paper",
            "clone_warmup": True,
            "odm_signal": "loss",
            "gamma": 0.95,
            "tau": 0.001,
        }

    # ---- the paper's state ----------------------------------------------------------------
    def _n_features(self) -> int:
        return N_FEATURES if self.state_kind == "ours" else 3 + 2 * self.n_norms + 1

    def _reset_stats(self) -> None:
        super()._reset_stats()
        n = self.n_sources
        # the paper's state: last loss per source and its change, this step's counts, norms
        self.p_loss = np.full(n, np.nan)
        self.p_dloss = np.full(n, np.nan)
        self.p_counts = np.zeros(n)
        self.p_norms = np.full(self.n_norms, np.nan)
        self.p_dnorms = np.full(self.n_norms, np.nan)

    def _features(self) -> np.ndarray:
        if self.state_kind != "paper":
            return super()._features()
        progress = min(self.step / max(self.horizon, 1), 1.0)
        F = paper_features(
            self.p_loss, self.p_dloss, self.p_counts, self.p_norms, self.p_dnorms, progress
        )
        return np.clip(np.where(np.isfinite(F), F, 0.0), -5.0, 5.0)

    def _track(self, fb: Feedback, align: np.ndarray) -> None:
        super()._track(fb, align)
        if self.state_kind != "paper":
            return
        norms = fb.extra.get("param_norms")
        if norms is None or np.asarray(norms).shape != (self.n_norms,):
            raise ValueError(
                f"{type(self).__name__}(state='paper') needs Feedback.extra['param_norms']: the "
                f"Frobenius norms of {self.n_norms} chosen weight matrices (the same matrices every "
                f"step), got {norms!r}"
            )
        norms = np.asarray(norms, dtype=np.float64)
        seen = np.isfinite(fb.loss)
        self.p_dloss = np.where(
            seen & np.isfinite(self.p_loss), fb.loss - self.p_loss, self.p_dloss
        )
        self.p_loss = np.where(seen, fb.loss, self.p_loss)
        self.p_counts = fb.counts.copy()
        self.p_dnorms = norms - self.p_norms
        self.p_norms = norms

    def _state(self) -> dict:
        return {
            **super()._state(),
            "paper": {
                "loss": self.p_loss.copy(),
                "dloss": self.p_dloss.copy(),
                "counts": self.p_counts.copy(),
                "norms": self.p_norms.copy(),
                "dnorms": self.p_dnorms.copy(),
            },
        }

    def _load_state(self, st: dict) -> None:
        super()._load_state(st)
        if "paper" in st:
            f64 = lambda x: np.asarray(x, dtype=np.float64).copy()  # noqa: E731
            p = st["paper"]
            self.p_loss, self.p_dloss, self.p_counts = (
                f64(p["loss"]),
                f64(p["dloss"]),
                f64(p["counts"]),
            )
            self.p_norms, self.p_dnorms = f64(p["norms"]), f64(p["dnorms"])

    # ---- the paper's reward, the softmax and paper allocations -------------------------------
    def _coefficients(
        self, fb: Feedback, align: np.ndarray, proj: np.ndarray
    ) -> tuple[np.ndarray, float]:
        if self.reward_kind != "interference":
            return super()._coefficients(fb, align, proj)
        if fb.grad_sketch is None:
            return np.full(self.n_sources, np.nan), 0.0
        return interference_scores(fb.grad_sketch), 0.0

    def _scale(self, c: np.ndarray, ok: np.ndarray) -> np.ndarray:
        if self.allocation == "paper":  # the paper's reward vector, unweighted
            return np.where(ok, c, 0.0)
        if self.allocation == "softmax":  # centred across sources
            return self._scaled(c, ok, float(np.mean(c[ok])))
        return super()._scale(c, ok)

    def _prior_coefficients(
        self, learnability: np.ndarray, weights: np.ndarray
    ) -> np.ndarray | None:
        if self.allocation == "paper":
            return None
        return super()._prior_coefficients(learnability, weights)

    def _critic_in(self, S: np.ndarray, A: np.ndarray) -> np.ndarray:
        """The paper critic's input: each source's state row and its weight (as n * a_i - 1)."""
        return np.concatenate([S, (self.n_sources * A - 1.0)[..., None]], axis=-1)

    def _dq_da(self, h: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """dQ_i/da_i of the paper's critic at hidden activations h (flattened over rows)."""
        c = self.critic
        return ((1 - h * h) @ (c["wu"] * c["W"][-1])).reshape(shape) * self.n_sources

    def _critic_gradient(
        self, S: np.ndarray, A: np.ndarray, seen: np.ndarray, C: np.ndarray, S2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        if self.allocation == "proportional":
            return super()._critic_gradient(S, A, seen, C, S2)
        c, gamma, B = self.critic, self.settings.gamma, len(S)
        if self.allocation == "paper":
            X = self._critic_in(S, A)
            u, _, h = self._critic_fwd(c, X)
            if self.step < self.warmup:  # the paper's warm-up target: r + gamma r
                y = np.where(seen, C, 0.0) * (1 + gamma)
            else:
                a2 = softmax(self._actor_fwd(self.actor_t, S2)[0])
                q2, _, _ = self._critic_fwd(self.critic_t, self._critic_in(S2, a2))
                y = np.where(seen, C, 0.0) + gamma * q2
            err = np.where(seen, u - y, 0.0) * (2.0 / max(int(seen.sum()), 1))
            return self._critic_grad(X, h, err.reshape(-1), np.zeros(B)), u
        # softmax: since sum_i a_i = 1, Q(s, a) = r + gamma V'(s') for every action exactly when
        # u_i(s) + v(s) = c_i + gamma V'(s') for each source i: regress that on observed sources
        u, v, h = self._critic_fwd(c, S)
        z2, _ = self._actor_fwd(self.actor_t, S2)
        u2, v2, _ = self._critic_fwd(self.critic_t, S2)
        v_next = (softmax(z2) * u2).sum(-1) + v2
        y = np.where(seen, C, 0.0) + gamma * v_next[:, None]
        err = np.where(seen, u + v[:, None] - y, 0.0) * (2.0 / max(int(seen.sum()), 1))
        return self._critic_grad(S, h, err.reshape(-1), err.sum(1)), u

    def _actor_dz(self, S: np.ndarray, A: np.ndarray, a: np.ndarray, u: np.ndarray) -> np.ndarray:
        B, entropy = len(S), self.settings.entropy
        if self.step < self.warmup and self.settings.clone_warmup:
            # behaviour cloning: descend 0.5 |softmax(z) - a_executed|^2 (the warm-up ODM's weights)
            d = a - A
            return -(a * (d - (a * d).sum(-1, keepdims=True)) / B).reshape(-1)
        if self.allocation == "paper":
            # ascend mean_i Q_i(s, mu(s)), with the critic before its step
            _, _, hq = self._critic_fwd(self.critic, self._critic_in(S, a))
            gi = self._dq_da(hq, a.shape) / self.n_sources
            return (a * (gi - (a * gi).sum(-1, keepdims=True)) / B).reshape(-1)
        if self.allocation == "softmax":
            # ascend Q(s, mu(s)) + entropy * H(mu(s)); dQ/da_i = u_i(s) (critic before its step)
            gi = u - entropy * (np.log(a + 1e-12) + 1.0)
            return (a * (gi - (a * gi).sum(-1, keepdims=True)) / B).reshape(-1)
        return super()._actor_dz(S, A, a, u)

    def critic_value(self, action: np.ndarray, state: np.ndarray | None = None) -> float:
        """Q(state, action) under the current critic (the mean over sources for `"paper"`)."""
        if self.allocation != "paper":
            return super().critic_value(action, state)
        S = self.state if state is None else state
        a = np.asarray(action, dtype=np.float64)
        q, _, _ = self._critic_fwd(self.critic, self._critic_in(S, a))
        return float(q.mean())
