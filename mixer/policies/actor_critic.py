"""What the actor-critic mixers (`ACODM`, `ProxyACODM`) share: the per-source state tracked from
the feedback, the actor and critic networks (numpy, hand-derived gradients) with their Adam
optimisers, the run's length, and saving a learnt policy.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from filters.contracts import UserError
from mixer.feedback import Feedback
from mixer.log import logger
from mixer.policies.base import Mixer
from mixer.policies.baselines import softmax
from mixer.policies.nets import Adam, param_views

__all__ = ["DEFAULT_HORIZON", "N_FEATURES"]

N_FEATURES = 10  # per-source state columns
#: The run length (mixer updates) assumed when neither the user nor a trainer adapter gives one.
DEFAULT_HORIZON = 1000


def _saved_policy(path: str | Path, kind: str, hint: str) -> dict:
    """A policy's state saved with `torch.save(mixer.state_dict(), path)`, or as JSON (`.json`);
    UserError, with `hint` on how to make one, where there is no file."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"no {kind} policy file at {path}; {hint}")
    if path.suffix == ".json":
        state: dict = json.loads(path.read_text())
        return state
    import torch

    return torch.load(path, weights_only=True)


class _ActorCritic(Mixer):
    """What `ACODM` and `ProxyACODM` share: the state features (per source, tracked from the
    feedback, `N_FEATURES` columns) and the actor and critic networks with their Adam optimisers.
    A subclass may read another state (`state_kind`, `_n_features`, `_features`) and put
    `critic_inputs` extra columns (an action) into the critic after the state's."""

    #: which state the features are (saved, and checked on loading a policy)
    state_kind = "ours"
    #: extra critic input columns after the state's
    critic_inputs = 0

    #: whether `set_horizon` may change the run's length after the first update (ProxyACODM's
    #: segments are cut once): a trainer that learns the length as it goes re-tells it
    horizon_can_change = True

    def __init__(
        self,
        n_sources: int,
        hidden: int = 8,
        actor_lr: float = 1e-2,
        critic_lr: float = 1e-2,
        ema: float = 0.8,
        horizon: int | None = None,
        source_bias: bool = True,
        **kw,
    ) -> None:
        super().__init__(n_sources, **kw)
        if horizon is not None and horizon < 1:
            raise ValueError(f"horizon must be >= 1 (the run's length in steps), got {horizon}")
        self.hidden, self.ema_beta = int(hidden), float(ema)
        #: who set the run's length: "user" (the constructor), an adapter's word, or "guess"
        self.horizon_origin = "user" if horizon is not None else "guess"
        self.horizon = int(horizon) if horizon is not None else DEFAULT_HORIZON
        self.n_features = self._n_features()
        self.trend_beta = 0.9
        self._bias_on = 1.0 if source_bias else 0.0
        n, f, h = self.n_sources, self.n_features, self.hidden
        fc = f + int(self.critic_inputs)
        init = np.random.default_rng([self.seed, 1])
        self._actor_shapes = {"W": (f, h), "b": (h,), "w": (h,), "bias": (n,)}
        self._critic_shapes = {
            "W": (fc, h),
            "b": (h,),
            "wu": (h,),
            "bu": (n,),
            "wv": (h,),
            "cv": (1,),
        }
        na = sum(int(np.prod(x)) for x in self._actor_shapes.values())
        nc = sum(int(np.prod(x)) for x in self._critic_shapes.values())
        self.actor_flat, self.critic_flat = np.zeros(na), np.zeros(nc)
        self._bind()
        self.actor["W"][:] = init.normal(0, 1 / np.sqrt(f), (f, h))
        self.actor["w"][:] = init.normal(0, 0.1 / np.sqrt(h), h)
        self.critic["W"][:] = init.normal(0, 1 / np.sqrt(fc), (fc, h))
        self.critic["wu"][:] = init.normal(0, 1 / np.sqrt(h), h)
        self.critic["wv"][:] = init.normal(0, 1 / np.sqrt(h), h)
        self.actor_opt = Adam(na, actor_lr)
        self.critic_opt = Adam(nc, critic_lr)
        self._reset_stats()
        self.last_dev = np.full(n, np.nan)
        self.state = self._features()
        self.updates = 0

    def _reset_stats(self) -> None:
        """Forget the tracked statistics (the state's inputs), as at the start of a run."""
        n = self.n_sources
        # moving averages of loss, reward, |advantage|, pass rate, alignment
        self.level = np.full((5, n), np.nan)
        self.trend = np.full((2, n), np.nan)  # moving average of per-step changes of loss, reward
        self.rms_d = np.full(2, 1e-2)  # running mean square of those changes
        self.draws = np.zeros(n)
        self.recent_share = np.full(n, 1.0 / n)
        self.rms = {"adv": 1e-2, "coef": 1.0, "n_coef": 0}
        self.last_eval_loss: float | None = None

    def _bind(self) -> None:
        """(Re)create the named parameter views into the flat vectors."""
        self.actor = param_views(self.actor_flat, self._actor_shapes)
        self.critic = param_views(self.critic_flat, self._critic_shapes)

    # ---- the run's length -------------------------------------------------------------------
    def set_horizon(self, steps: int, origin: str = "the trainer") -> bool:
        """The run will make `steps` updates (see `Mixer.set_horizon`); a horizon given to the
        constructor wins, and is only compared."""
        steps = int(steps)
        if steps < 1:
            raise ValueError(f"the run's length must be >= 1 update, got {steps}")
        if self.horizon_origin == "user":
            if steps != self.horizon:
                logger.info(
                    "%s: horizon=%d as given, while %s says the run makes %d updates",
                    self.name,
                    self.horizon,
                    origin,
                    steps,
                )
            return False
        self.horizon, self.horizon_origin = steps, origin
        self._horizon_changed()
        return True

    def _horizon_changed(self) -> None:  # noqa: B027 - optional hook
        """Recompute what depends on the horizon (subclasses)."""

    def _credit(self, fb: Feedback, used: np.ndarray) -> None:
        if self.step == 0 and self.horizon_origin == "guess":
            logger.warning(
                "%s: the run's length is unknown; assuming horizon=%d updates (%s). Pass "
                "horizon=<updates in the run>, or let a trainer adapter set it",
                self.name,
                self.horizon,
                self._horizon_effects(),
            )
        super()._credit(fb, used)

    def _horizon_effects(self) -> str:
        return "the progress feature is step / horizon"

    # ---- features ---------------------------------------------------------------------------
    def _n_features(self) -> int:
        return N_FEATURES

    def _features(self) -> np.ndarray:
        n = self.n_sources
        lv = self.level
        two = lv[:2]
        ok = np.isfinite(two)
        cnt = ok.sum(1, keepdims=True)
        mu = np.where(ok, two, 0.0).sum(1, keepdims=True) / np.maximum(cnt, 1)
        sd = np.sqrt(np.where(ok, (two - mu) ** 2, 0.0).sum(1, keepdims=True) / np.maximum(cnt, 1))
        z = np.where(ok & (cnt > 1), np.clip((two - mu) / (sd + 1e-8), -3, 3), 0.0)
        tr = self.trend / np.sqrt(self.rms_d)[:, None]
        total = self.draws.sum()
        share = self.draws / total * n - 1 if total > 0 else np.zeros(n)
        F = np.stack(
            [
                z[0],
                tr[0],
                z[1],
                tr[1],
                lv[2] / np.sqrt(self.rms["adv"]),
                2 * lv[3] - 1,
                lv[4],
                share,
                self.recent_share * n - 1,
                np.full(n, min(self.step / max(self.horizon, 1), 1.0)),
            ],
            axis=1,
        )
        return np.clip(np.where(np.isfinite(F), F, 0.0), -5.0, 5.0)

    def _track(self, fb: Feedback, align: np.ndarray) -> None:
        x = np.stack([fb.loss, fb.reward, fb.adv_abs, fb.pass_rate, align])
        old = self.level
        seen = np.isfinite(x)
        b = self.ema_beta
        new = np.where(
            seen & np.isfinite(old),
            b * old + (1 - b) * np.where(seen, x, 0.0),
            np.where(seen, x, old),
        )
        d = new[:2] - old[:2]
        dm = np.isfinite(d)
        tb = self.trend_beta
        t = self.trend
        self.trend = np.where(
            dm & np.isfinite(t), tb * t + (1 - tb) * np.where(dm, d, 0.0), np.where(dm, d, t)
        )
        cnt = dm.sum(1)
        sq = np.where(dm, d * d, 0.0).sum(1) / np.maximum(cnt, 1) + 1e-8
        self.rms_d = np.where(cnt > 0, 0.95 * self.rms_d + 0.05 * sq, self.rms_d)
        if seen[2].any():
            a = x[2][seen[2]]
            self.rms["adv"] = 0.95 * self.rms["adv"] + 0.05 * float(np.mean(a * a) + 1e-8)
        self.level = new
        self.draws += fb.counts
        total = fb.counts.sum()
        if total > 0:
            self.recent_share = (
                self.trend_beta * self.recent_share + (1 - self.trend_beta) * fb.counts / total
            )
        if fb.eval_loss is not None:
            self.last_eval_loss = fb.eval_loss
        self.last_dev = np.where(np.isfinite(fb.dev_loss), fb.dev_loss, self.last_dev)

    # ---- networks ---------------------------------------------------------------------------
    @staticmethod
    def _actor_fwd(p: dict, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        shp = S.shape[:-1]
        h = np.tanh(S.reshape(-1, S.shape[-1]) @ p["W"] + p["b"])
        return (h @ p["w"]).reshape(shp) + p["bias"], h

    @staticmethod
    def _critic_fwd(p: dict, S: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        shp = S.shape[:-1]
        h = np.tanh(S.reshape(-1, S.shape[-1]) @ p["W"] + p["b"])
        u = (h @ p["wu"]).reshape(shp) + p["bu"]
        hm = h.reshape(*shp, -1).mean(axis=-2)
        return u, hm @ p["wv"] + p["cv"][0], h

    def _actor_grad(self, S: np.ndarray, ha: np.ndarray, dz: np.ndarray) -> np.ndarray:
        """The actor's flat parameter gradient from dz (the gradient on its logits, flattened
        over minibatch and sources), `ha` the hidden activations of `_actor_fwd` on states S."""
        dpre = np.outer(dz, self.actor["w"]) * (1 - ha * ha)
        return np.concatenate(
            [
                (S.reshape(-1, S.shape[-1]).T @ dpre).ravel(),
                dpre.sum(0),
                dz @ ha,
                dz.reshape(-1, self.n_sources).sum(0) * self._bias_on,
            ]
        )

    def _critic_grad(
        self, S: np.ndarray, h: np.ndarray, du: np.ndarray, dv: np.ndarray
    ) -> np.ndarray:
        """The critic's flat parameter gradient from du (on u, flattened over minibatch and
        sources) and dv (on v, per minibatch row), `h` the hidden activations of `_critic_fwd`."""
        c, n = self.critic, self.n_sources
        dvn = np.repeat(dv / n, n)  # v = mean_i h_i . wv + cv
        dpre = (np.outer(du, c["wu"]) + np.outer(dvn, c["wv"])) * (1 - h * h)
        return np.concatenate(
            [
                (S.reshape(-1, S.shape[-1]).T @ dpre).ravel(),
                dpre.sum(0),
                du @ h,
                du.reshape(-1, n).sum(0) * self._bias_on,
                dvn @ h,
                [dv.sum()],
            ]
        )

    def actor_weights(self, state: np.ndarray | None = None) -> np.ndarray:
        """The actor's deterministic (noise-free) weights for a state (default: the current one)."""
        z, _ = self._actor_fwd(self.actor, self.state if state is None else state)
        return softmax(z)

    # ---- state ------------------------------------------------------------------------------
    def _state(self) -> dict:
        return {
            "actor": self.actor_flat.copy(),
            "critic": self.critic_flat.copy(),
            "actor_opt": self.actor_opt.state(),
            "critic_opt": self.critic_opt.state(),
            "level": self.level.copy(),
            "trend": self.trend.copy(),
            "rms_d": self.rms_d.copy(),
            "draws": self.draws.copy(),
            "recent_share": self.recent_share.copy(),
            "rms": dict(self.rms),
            "last_eval_loss": self.last_eval_loss,
            "last_dev": self.last_dev.copy(),
            "state": self.state.copy(),
            "updates": self.updates,
            "state_kind": self.state_kind,
        }

    def _load_state(self, st: dict) -> None:
        f64 = lambda x: np.asarray(x, dtype=np.float64).copy()  # noqa: E731
        saved_kind = st.get("state_kind", "ours")
        if saved_kind != self.state_kind:
            raise ValueError(
                f"the saved policy reads state={saved_kind!r}, this {type(self).__name__} "
                f"state={self.state_kind!r}: build it with the same state as the saved one"
            )
        for key, flat in (("actor", self.actor_flat), ("critic", self.critic_flat)):
            if np.asarray(st[key]).shape != flat.shape:
                raise ValueError(
                    f"the saved {key} has {np.asarray(st[key]).size} parameters, this "
                    f"{type(self).__name__} {flat.size}: build it with the same state, "
                    "hidden and settings as the saved one"
                )
        self.actor_flat[:] = f64(st["actor"])
        self.critic_flat[:] = f64(st["critic"])
        self.actor_opt.load(st["actor_opt"])
        self.critic_opt.load(st["critic_opt"])
        self.level = f64(st["level"])
        self.trend = f64(st["trend"])
        self.rms_d = f64(st["rms_d"])
        self.draws = f64(st["draws"])
        self.recent_share = f64(st["recent_share"])
        self.rms = {k: int(v) if k == "n_coef" else float(v) for k, v in st["rms"].items()}
        self.last_eval_loss = st["last_eval_loss"]
        self.last_dev = f64(st["last_dev"])
        self.state = f64(st["state"])
        self.updates = int(st["updates"])
