"""AC-ODM: actor-critic online data mixing (DDPG-style), with both networks trained, in numpy.

The networks are tiny and written with hand-derived gradients so one update costs tens to a few
hundred microseconds on a CPU (torch's per-op overhead would dominate at this size). The AC-ODM
paper's recipe (its reward, state, per-source critic and cloned warm-up) is a set of options
(`ACODM.paper_recipe()`), and `deploy()` freezes a policy learnt in a proxy run for a target run.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from filters.contracts import UserError
from mixer.feedback import Feedback
from mixer.log import logger
from mixer.policies.base import Mixer
from mixer.policies.baselines import ADV_PER_INFORMATIVE, ODM, softmax
from mixer.policies.nets import Adam, param_views
from mixer.policies.sketch import alignment_scores, target_scores

__all__ = ["ACODM", "N_FEATURES", "alignment_scores", "interference_scores", "paper_features"]

N_FEATURES = 10  # per-source state columns of `state="ours"`
# per reward: what it reads from Feedback (named in the error when a trainer never sends it), and
# the signal of the ODM that chooses the weights during warm-up
_REWARDS = {
    "advantage": ("adv_abs", "adv_abs"),
    "heldout": ("dev_loss (a fixed held-out slice's loss per source)", "loss"),
    "target": ("grad_sketch and target_sketch", "loss"),
    "alignment": ("grad_sketch", "loss"),
    "interference": ("grad_sketch", "loss"),
    "learnability": ("pass_rate", "adv_abs"),
    "informative": ("zero_adv (the share of groups with all rewards equal)", "adv_abs"),
    "contribution": ("zero_adv (the share of groups with all rewards equal)", "adv_abs"),
    "progress": ("loss or reward", "loss"),
}
#: Logits the actor's per-source bias can move within the settling window (see `settle_frac`):
#: the actor's default step size is this over the window's updates.
LOGIT_REACH = 3.0
#: The run length (mixer updates) assumed when neither the user nor a trainer adapter gives one.
DEFAULT_HORIZON = 1000

_STATES = ("ours", "paper")
_ALLOCATIONS = ("proportional", "softmax", "paper")


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
    feedback: `state="ours"`, `N_FEATURES` columns, or the AC-ODM paper's, `state="paper"`) and
    the actor and critic networks with their Adam optimisers. `critic_inputs` extra columns (the
    action, for the paper's critic) go into the critic after the state's."""

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
        state: str = "ours",
        n_norms: int = 3,
        critic_inputs: int = 0,
        **kw,
    ) -> None:
        super().__init__(n_sources, **kw)
        if state not in _STATES:
            raise ValueError(f"state must be one of {_STATES}, got {state!r}")
        if horizon is not None and horizon < 1:
            raise ValueError(f"horizon must be >= 1 (the run's length in steps), got {horizon}")
        self.hidden, self.ema_beta = int(hidden), float(ema)
        #: who set the run's length: "user" (the constructor), an adapter's word, or "guess"
        self.horizon_origin = "user" if horizon is not None else "guess"
        self.horizon = int(horizon) if horizon is not None else DEFAULT_HORIZON
        self.state_kind, self.n_norms = state, int(n_norms)
        if state == "paper" and self.n_norms < 1:
            raise ValueError(f"state='paper' needs n_norms >= 1, got {n_norms}")
        self.n_features = N_FEATURES if state == "ours" else 3 + 2 * self.n_norms + 1
        self.trend_beta = 0.9
        self._bias_on = 1.0 if source_bias else 0.0
        n, f, h = self.n_sources, self.n_features, self.hidden
        fc = f + int(critic_inputs)
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
        # the paper's state: last loss per source and its change, this step's counts, norms
        self.p_loss = np.full(n, np.nan)
        self.p_dloss = np.full(n, np.nan)
        self.p_counts = np.zeros(n)
        self.p_norms = np.full(self.n_norms, np.nan)
        self.p_dnorms = np.full(self.n_norms, np.nan)

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
    def _features(self) -> np.ndarray:
        if self.state_kind == "paper":
            progress = min(self.step / max(self.horizon, 1), 1.0)
            F = paper_features(
                self.p_loss, self.p_dloss, self.p_counts, self.p_norms, self.p_dnorms, progress
            )
            return np.clip(np.where(np.isfinite(F), F, 0.0), -5.0, 5.0)
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
        if self.state_kind == "paper":
            self._track_paper(fb)

    def _track_paper(self, fb: Feedback) -> None:
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
            "paper": {
                "loss": self.p_loss.copy(),
                "dloss": self.p_dloss.copy(),
                "counts": self.p_counts.copy(),
                "norms": self.p_norms.copy(),
                "dnorms": self.p_dnorms.copy(),
            },
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
                    "allocation, hidden and n_norms as the saved one"
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
        if "paper" in st:  # states saved before the paper's state existed have none
            p = st["paper"]
            self.p_loss, self.p_dloss = f64(p["loss"]), f64(p["dloss"])
            self.p_counts, self.p_norms, self.p_dnorms = (
                f64(p["counts"]),
                f64(p["norms"]),
                f64(p["dnorms"]),
            )


class ACODM(_ActorCritic):
    """Actor-critic online data mixing.

    State (`state=`): `"ours"` (default): per source, normalised levels and trends (moving averages
    of per-step changes) of loss and reward, mean |advantage|, pass rate, gradient alignment (with
    the held-out gradient when one is given, else with the other sources), share of draws (overall
    and recent), and training progress (`N_FEATURES` columns). `"paper"`: the AC-ODM paper's, see
    `paper_features` (it needs `Feedback.extra["param_norms"]`, the norms of `n_norms` weight
    matrices). Action: the sampling weights, softmax of the actor's per-source logits plus Gaussian
    exploration noise (std `sigma`, decaying to `sigma_min`).
    Reward: per-source coefficients c_i, weighted by the weights a actually used (sum_i a_i c_i):
      - `"advantage"` (default): mean |GRPO advantage| of source i;
      - `"learnability"`: p_i (1 - p_i) of source i's pass rate in the step: zero for a solved
        and for a hopeless source;
      - `"heldout"`: the drop of source i's held-out loss (`feedback.dev_loss`, a fixed held-out
        slice per source) since it was last measured: progress that is not memorisation;
      - `"target"`: <g_i, t> / |t|, source i's mean-loss gradient (`feedback.grad_sketch`)
        projected on the gradient t of a held-out objective (`feedback.target_sketch`): the
        first-order drop of the held-out loss one step on that source buys;
      - `"alignment"`: cos(g_i, sum_{j != i} g_j) from `feedback.grad_sketch`;
      - `"interference"`: the paper's constructive interference, `interference_scores`;
      - `"progress"`: drop of source i's training loss, or rise of its reward, since last seen,
        plus the drop of `feedback.eval_loss` when given.
    Coefficients are scaled by a running RMS that starts from the first observation and is
    winsorised at 3 RMS (so raw rewards of any magnitude steer alike).
    `allocation` decides how the learnt per-source values become weights:
      - `"proportional"` (default): c is not centred; the critic learns each source's value u_i(s)
        (a regression of c_i on the state, no bootstrap) and the actor ascends
        sum_i max(u_i, 0)^`power` log a_i + `entropy` * H(a), whose optimum is a_i ~ max(u_i, 0)^power:
        with power 1 a source worth twice as much gets twice the weight (power 2: four times), and
        no single source takes everything (diminishing returns per source). Sources of no value
        fall to the floor.
      - `"softmax"`: c is centred across sources; the critic is Q(s, a) = sum_i a_i u_i(s) + v(s),
        trained DDPG-style on r + gamma Q'(s', mu'(s')) (split exactly per source, since the
        weights sum to one), and the actor ascends Q(s, mu(s)) + `entropy` * H(mu(s)), whose
        optimum is softmax(u / entropy): it concentrates on the best source unless `entropy`
        is large.
      - `"paper"`: the paper's critic, one value per source Q_i(s, a) (here of the source's own
        state row and weight), trained on the unweighted c_i + gamma Q'_i(s', mu'(s')); the actor
        ascends mean_i Q_i(s, mu(s)). c_i does not depend on the action, so the actor's
        objective barely does either (kept to measure the recipe as published).
    Learning: a replay buffer, target networks with soft updates (`tau`), Adam. For the first
    `warmup` steps (default `warmup_frac` of the `horizon`, at least 1) the executed weights
    follow an internal ODM and the networks learn off-policy; with `clone_warmup` the actor is
    also regressed onto the ODM's weights then (the paper's behaviour cloning), so it takes over
    from where the ODM was. Networks are updated every `train_every` steps; `smoothing` in [0, 1)
    blends each new action with the previous weights; `source_bias=False` drops the per-source
    bias terms of actor and critic, so the policy depends on the features only.
    `deploy()` freezes the learnt policy for a new run (a proxy's policy driving the target run);
    `policy_file=` loads a saved one and deploys it.
    Other knobs: `hidden` width, `gamma`, `actor_lr`/`critic_lr`, minibatch `batch_size`,
    `buffer_size`, `entropy`, `ema` (feature smoothing), `horizon` (the run's length in
    updates: the progress feature and the warm-up; None: the trainer adapters set it from the
    run's length with `set_horizon`, and without one the policy assumes `DEFAULT_HORIZON` and
    says so at its first update), `odm_signal` (the warm-up ODM's signal).
    """

    name = "acodm"

    def __init__(
        self,
        n_sources: int,
        reward: str = "advantage",
        hidden: int = 8,
        gamma: float = 0.5,
        tau: float = 0.05,
        actor_lr: float | None = None,
        critic_lr: float | None = None,
        batch_size: int = 16,
        buffer_size: int = 512,
        warmup: int | None = None,
        warmup_frac: float = 0.05,
        sigma: float = 0.3,
        sigma_min: float = 0.05,
        sigma_decay: float | None = None,
        settle_frac: float = 0.2,
        entropy: float = 0.1,
        ema: float = 0.8,
        horizon: int | None = None,
        train_every: int = 1,
        odm_signal: str | None = None,
        smoothing: float = 0.0,
        source_bias: bool = True,
        allocation: str = "proportional",
        power: float = 1.0,
        clone_warmup: bool = False,
        state: str = "ours",
        n_norms: int = 3,
        policy_file: str | Path | None = None,
        **kw,
    ) -> None:
        if allocation not in _ALLOCATIONS:
            raise ValueError(f"allocation must be one of {_ALLOCATIONS}, got {allocation!r}")
        super().__init__(
            n_sources,
            hidden,
            1e-2 if actor_lr is None else actor_lr,
            1e-2 if critic_lr is None else critic_lr,
            ema,
            horizon,
            source_bias,
            state=state,
            n_norms=n_norms,
            critic_inputs=1 if allocation == "paper" else 0,
            **kw,
        )
        if not 0.0 < settle_frac <= 1.0:
            raise ValueError(f"settle_frac must be in (0, 1], got {settle_frac}")
        self.settle_frac = float(settle_frac)
        self.lr_given = (actor_lr is not None, critic_lr is not None)
        if reward not in _REWARDS:
            raise ValueError(f"ACODM reward must be one of {tuple(_REWARDS)}, got {reward!r}")
        self.reward_kind = reward
        self.allocation = allocation
        if power <= 0:
            raise ValueError(f"power must be > 0, got {power}")
        self.power = float(power)
        self.gamma, self.tau, self.entropy = float(gamma), float(tau), float(entropy)
        self.batch_size, self.buffer_size = int(batch_size), int(buffer_size)
        if not 0.0 <= warmup_frac <= 1.0:
            raise ValueError(f"warmup_frac must be in [0, 1], got {warmup_frac}")
        self.warmup_frac, self.warmup_given = float(warmup_frac), warmup is not None
        self.warmup = (
            max(1, int(round(warmup_frac * self.horizon))) if warmup is None else int(warmup)
        )
        self.sigma, self.sigma_min, self.sigma_start = float(sigma), float(sigma_min), float(sigma)
        self.sigma_decay_given = sigma_decay is not None
        self.sigma_decay = 1.0 if sigma_decay is None else float(sigma_decay)
        self.train_every = max(1, int(train_every))
        if not 0.0 <= smoothing < 1.0:
            raise ValueError(f"smoothing must be in [0, 1), got {smoothing}")
        self.smoothing = float(smoothing)
        self.clone_warmup = bool(clone_warmup)
        self.frozen = False
        n, f = self.n_sources, self.n_features
        # target networks
        self.actor_t_flat, self.critic_t_flat = self.actor_flat.copy(), self.critic_flat.copy()
        self.actor_t = param_views(self.actor_t_flat, self._actor_shapes)
        self.critic_t = param_views(self.critic_t_flat, self._critic_shapes)
        sig = odm_signal or _REWARDS[reward][1]
        self.odm = ODM(n, signal=sig, floor=0.0, seed=self.seed, record_history=False)
        # replay buffer
        self.buf_s = np.zeros((self.buffer_size, n, f))
        self.buf_a = np.zeros((self.buffer_size, n))
        self.buf_r = np.zeros(self.buffer_size)
        self.buf_c = np.full((self.buffer_size, n), np.nan)
        self.buf_s2 = np.zeros((self.buffer_size, n, f))
        self.buf_ptr = 0
        self.buf_len = 0
        self.last_reward = float("nan")
        self._schedule()
        if policy_file is not None:
            self.load_policy(policy_file)

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

    @property
    def _prop(self) -> bool:
        return self.allocation == "proportional"

    # ---- reward -----------------------------------------------------------------------------
    def _coefficients(
        self, fb: Feedback, align: np.ndarray, proj: np.ndarray
    ) -> tuple[np.ndarray, float]:
        """Per-source reward coefficients (before action weighting) and an action-free bonus."""
        bonus = 0.0
        if self.reward_kind == "heldout":
            c = self.last_dev - fb.dev_loss
        elif self.reward_kind == "target":
            c = proj
        elif self.reward_kind == "advantage":
            c = fb.adv_abs.copy()
        elif self.reward_kind == "learnability":
            c = fb.pass_rate * (1.0 - fb.pass_rate)
        elif self.reward_kind == "informative":
            c = 1.0 - fb.zero_adv
        elif self.reward_kind == "contribution":
            total = float(fb.counts.sum())
            c = (1.0 - fb.zero_adv) * fb.counts / max(total, 1e-12)
        elif self.reward_kind == "alignment":
            c = align
        elif self.reward_kind == "interference":
            c = (
                interference_scores(fb.grad_sketch)
                if fb.grad_sketch is not None
                else np.full(self.n_sources, np.nan)
            )
        else:
            loss_drop = self.level[0] - fb.loss
            reward_rise = fb.reward - self.level[1]
            c = np.where(np.isfinite(loss_drop), loss_drop, reward_rise)
            if fb.eval_loss is not None and self.last_eval_loss is not None:
                bonus = self.last_eval_loss - fb.eval_loss
        return c, bonus

    def _scale(self, c: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Coefficients over a running RMS (centred across sources for softmax allocation),
        winsorised at 3, so one outlier step cannot shrink the next hundred; 0 where not `ok`."""
        cbar = float(np.mean(c[ok])) if self.allocation == "softmax" else 0.0
        dev = c[ok] - cbar
        if self.rms["n_coef"] == 0:  # the first observation sets the scale
            self.rms["coef"] = float(np.mean(dev**2)) + 1e-30
        scale = np.sqrt(self.rms["coef"])
        cn = np.where(ok, np.clip((c - cbar) / scale, -3.0, 3.0), 0.0)
        self.rms["coef"] = 0.95 * self.rms["coef"] + 0.05 * float(
            np.mean((cn[ok] * scale) ** 2) + 1e-30
        )
        self.rms["n_coef"] += 1
        return cn

    # ---- the paper's critic: Q_i(s_i, a_i) ----------------------------------------------------
    def _critic_in(self, S: np.ndarray, A: np.ndarray) -> np.ndarray:
        """The paper critic's input: each source's state row and its weight (as n * a_i - 1)."""
        return np.concatenate([S, (self.n_sources * A - 1.0)[..., None]], axis=-1)

    def _dq_da(self, h: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """dQ_i/da_i of the paper's critic at hidden activations h (flattened over rows)."""
        c = self.critic
        return ((1 - h * h) @ (c["wu"] * c["W"][-1])).reshape(shape) * self.n_sources

    # ---- learning ---------------------------------------------------------------------------
    def _train(self) -> None:
        B = min(self.batch_size, self.buf_len)
        idx = self.rng.integers(0, self.buf_len, size=B)
        S, A, C, S2 = self.buf_s[idx], self.buf_a[idx], self.buf_c[idx], self.buf_s2[idx]
        seen = np.isfinite(C)
        c = self.critic
        warm = self.step < self.warmup
        if self.allocation == "paper":
            X = self._critic_in(S, A)
            u, _, h = self._critic_fwd(c, X)
            if warm:  # the paper's warm-up target: r + gamma r
                y = np.where(seen, C, 0.0) * (1 + self.gamma)
            else:
                a2 = softmax(self._actor_fwd(self.actor_t, S2)[0])
                q2, _, _ = self._critic_fwd(self.critic_t, self._critic_in(S2, a2))
                y = np.where(seen, C, 0.0) + self.gamma * q2
            err = np.where(seen, u - y, 0.0) * (2.0 / max(int(seen.sum()), 1))
            g = self._critic_grad(X, h, err.reshape(-1), np.zeros(B))
        else:
            u, v, h = self._critic_fwd(c, S)
            if (
                self._prop
            ):  # u_i alone is source i's value per example (no shared part, no bootstrap)
                y = np.where(seen, C, 0.0)
                err = np.where(seen, u - y, 0.0) * (2.0 / max(int(seen.sum()), 1))
            else:
                # since sum_i a_i = 1, Q(s, a) = r + gamma V'(s') for every action exactly when
                # u_i(s) + v(s) = c_i + gamma V'(s') for each source i: regress that on observed sources
                z2, _ = self._actor_fwd(self.actor_t, S2)
                u2, v2, _ = self._critic_fwd(self.critic_t, S2)
                v_next = (softmax(z2) * u2).sum(-1) + v2
                y = np.where(seen, C, 0.0) + self.gamma * v_next[:, None]
                err = np.where(seen, u + v[:, None] - y, 0.0) * (2.0 / max(int(seen.sum()), 1))
            g = self._critic_grad(S, h, err.reshape(-1), np.zeros(B) if self._prop else err.sum(1))
        z, ha = self._actor_fwd(self.actor, S)
        a = softmax(z)
        if warm and self.clone_warmup:
            # behaviour cloning: descend 0.5 |softmax(z) - a_executed|^2 (the warm-up ODM's weights)
            d = a - A
            dz = -(a * (d - (a * d).sum(-1, keepdims=True)) / B).reshape(-1)
        elif self.allocation == "paper":
            # ascend mean_i Q_i(s, mu(s)), with the critic before its step
            _, _, hq = self._critic_fwd(c, self._critic_in(S, a))
            gi = self._dq_da(hq, a.shape) / self.n_sources
            dz = (a * (gi - (a * gi).sum(-1, keepdims=True)) / B).reshape(-1)
        elif self._prop:
            # ascend sum_i max(u_i, 0)^power log a_i + entropy * H(a): optimum a_i ~ max(u_i, 0)^power
            w = np.maximum(u, 0.0) ** self.power
            ge = -self.entropy * (np.log(a + 1e-12) + 1.0)
            dz2 = w - a * w.sum(-1, keepdims=True) + a * (ge - (a * ge).sum(-1, keepdims=True))
            dz = (dz2 / B).reshape(-1)
        else:
            # ascend Q(s, mu(s)) + entropy * H(mu(s)); dQ/da_i = u_i(s) (critic before its step)
            gi = u - self.entropy * (np.log(a + 1e-12) + 1.0)
            dz = (a * (gi - (a * gi).sum(-1, keepdims=True)) / B).reshape(-1)
        ga = self._actor_grad(S, ha, dz)
        self.critic_opt.step(self.critic_flat, g)
        self.actor_opt.step(self.actor_flat, ga, ascend=True)
        tau = self.tau
        for net, tgt in (
            (self.actor_flat, self.actor_t_flat),
            (self.critic_flat, self.critic_t_flat),
        ):
            tgt *= 1 - tau
            tgt += tau * net
        self.updates += 1

    def critic_value(self, action: np.ndarray, state: np.ndarray | None = None) -> float:
        """Q(state, action) under the current critic (the mean over sources for `"paper"`)."""
        S = self.state if state is None else state
        a = np.asarray(action, dtype=np.float64)
        if self.allocation == "paper":
            q, _, _ = self._critic_fwd(self.critic, self._critic_in(S, a))
            return float(q.mean())
        u, v, _ = self._critic_fwd(self.critic, S)
        return float((a * u).sum() + v)

    # ---- deployment -------------------------------------------------------------------------
    def deploy(self) -> None:
        """Freeze the learnt policy for a new run: no more learning, no exploration noise and no
        warm-up; the tracked statistics, step count and history restart, as at a run's start.
        A proxy run's policy then drives the target run from its first step."""
        self.frozen = True
        self._reset_stats()
        self.step = 0
        self.history = []
        self.state = self._features()
        self._policy = softmax(self._actor_fwd(self.actor, self.state)[0])

    def load_policy(self, path: str | Path) -> None:
        """Load a policy saved with `torch.save(mixer.state_dict(), path)` (or as JSON, `.json`)
        and deploy it (for adapters that build the mixer by name: `policy_file=path`)."""
        self.load_state_dict(_saved_policy(path, "ACODM", "learn one in a proxy run first"))
        self.deploy()

    # ---- the mixer step ---------------------------------------------------------------------
    def _update(self, fb: Feedback) -> None:
        used = self.used_weights
        proj = align = np.full(self.n_sources, np.nan)
        if fb.grad_sketch is not None and fb.target_sketch is not None:
            proj, align = target_scores(fb.grad_sketch, fb.target_sketch)
        elif fb.grad_sketch is not None:
            align = alignment_scores(fb.grad_sketch)
        if self.frozen:  # a deployed policy only follows its state
            self._track(fb, align)
            self.state = self._features()
            new = softmax(self._actor_fwd(self.actor, self.state)[0])
            self._policy = (1 - self.smoothing) * new + self.smoothing * self._policy
            return
        c, bonus = self._coefficients(
            fb, align, proj
        )  # before tracking: `progress` needs the old level
        self._track(fb, align)
        s2 = self._features()
        if self.step < self.warmup:
            self.odm._credit(fb, used)  # the warm-up ODM is credited with what was executed
        ok = np.isfinite(c) & self.active
        if not ok.any() and self.buf_len == 0 and self.step >= max(2 * self.warmup, 50):
            raise ValueError(
                f"ACODM(reward={self.reward_kind!r}) got no usable feedback in {self.step} steps: "
                f"it needs Feedback.{_REWARDS[self.reward_kind][0]}; choose a reward that your "
                f"trainer's feedback carries"
            )
        if ok.any():
            if self.allocation == "paper":  # the paper's reward vector, unweighted
                cn = np.where(ok, c, 0.0)
            else:
                cn = self._scale(c, ok)
            r = float((used * cn).sum() + bonus)
            j = self.buf_ptr
            self.buf_s[j], self.buf_a[j], self.buf_r[j], self.buf_s2[j] = self.state, used, r, s2
            self.buf_c[j] = np.where(ok, cn + bonus, np.nan)
            self.buf_ptr = (j + 1) % self.buffer_size
            self.buf_len = min(self.buf_len + 1, self.buffer_size)
            self.last_reward = r
        if self.buf_len >= 2 and self.step % self.train_every == 0:
            self._train()
        self.state = s2
        if self.step < self.warmup:
            self._policy = self.odm.weights()
        else:
            z, _ = self._actor_fwd(self.actor, s2)
            noise = self.rng.normal(0.0, self.sigma, self.n_sources)
            new = softmax(z + noise)
            self._policy = (1 - self.smoothing) * new + self.smoothing * self._policy
            self.sigma = max(self.sigma_min, self.sigma * self.sigma_decay)

    def _horizon_changed(self) -> None:
        if not self.warmup_given:
            self.warmup = max(1, int(round(self.warmup_frac * self.horizon)))
        self._schedule()

    def _schedule(self) -> None:
        """What the run's length sizes (unless given): the exploration noise decays from `sigma`
        to `sigma_min` over the first `settle_frac` of the run, and the actor and critic step so
        that the actor's per-source bias can move `LOGIT_REACH` logits in that window (Adam moves
        a parameter about its step size per update): the policy settles within the run."""
        window = max(1.0, self.settle_frac * self.horizon)
        if not self.sigma_decay_given:
            ratio = min(self.sigma_min / max(self.sigma_start, 1e-12), 1.0)
            self.sigma_decay = ratio ** (1.0 / window)
        lr = float(np.clip(LOGIT_REACH / window, 1e-2, 0.2))
        for given, opt in zip(self.lr_given, (self.actor_opt, self.critic_opt), strict=True):
            if not given:
                opt.lr = lr

    def _start_from(self, learnability: np.ndarray, weights: np.ndarray) -> bool:
        """Start from the prior (`Mixer.set_prior`): the actor's per-source bias puts the first
        weights at `weights`, the critic's per-source value starts at what the prior predicts of
        the reward (`informative`, `advantage`, `contribution`), and there is no warm-up: the
        policy learns from its own draws from the first step."""
        if self.frozen:
            return False
        w = np.maximum(weights, 1e-3 * float(weights.max()))
        bias = np.log(w / w.sum())
        bias -= bias.mean()
        self.actor["bias"][:] = bias * self._bias_on
        self.actor_t["bias"][:] = self.actor["bias"]
        c = self._prior_coefficients(learnability, weights)
        if c is not None and self.allocation != "paper" and c.max() > 0:
            self.rms["coef"] = float(np.mean(c**2)) + 1e-30  # the scale the coefficients take
            self.rms["n_coef"] = 1
            self.critic["bu"][:] = c / np.sqrt(self.rms["coef"]) * self._bias_on
            self.critic_t["bu"][:] = self.critic["bu"]
        self.warmup, self.warmup_given = 0, True
        self._policy = softmax(self._actor_fwd(self.actor, self.state)[0])
        return True

    def _prior_coefficients(
        self, learnability: np.ndarray, weights: np.ndarray
    ) -> np.ndarray | None:
        """What the prior predicts of each source's reward coefficient (None: nothing known)."""
        if self.reward_kind == "informative":
            return learnability
        if self.reward_kind == "advantage":
            return ADV_PER_INFORMATIVE * learnability
        if self.reward_kind == "contribution":
            return learnability * weights / max(float(weights.sum()), 1e-12)
        return None

    def _horizon_effects(self) -> str:
        if self.warmup == 0:
            return "progress feature step / horizon, noise and step sizes over its first " + (
                f"{self.settle_frac:.0%}"
            )
        return f"ODM warm-up for the first {self.warmup}, progress feature step / horizon"

    def _state(self) -> dict:
        L = self.buf_len
        return {
            **super()._state(),
            "horizon": self.horizon,
            "horizon_origin": self.horizon_origin,
            "warmup": self.warmup,
            "warmup_given": self.warmup_given,
            "actor_t": self.actor_t_flat.copy(),
            "critic_t": self.critic_t_flat.copy(),
            "odm": self.odm.state_dict(),
            "buf": {
                "s": self.buf_s[:L].copy(),
                "a": self.buf_a[:L].copy(),
                "r": self.buf_r[:L].copy(),
                "c": self.buf_c[:L].copy(),
                "s2": self.buf_s2[:L].copy(),
                "ptr": self.buf_ptr,
                "len": L,
            },
            "sigma": self.sigma,
            "last_reward": self.last_reward,
            "frozen": self.frozen,
        }

    def _load_state(self, st: dict) -> None:
        super()._load_state(st)
        f64 = lambda x: np.asarray(x, dtype=np.float64).copy()  # noqa: E731
        self.actor_t_flat[:] = f64(st["actor_t"])
        self.critic_t_flat[:] = f64(st["critic_t"])
        self.odm.load_state_dict(st["odm"])
        b = st["buf"]
        L = int(b["len"])
        for key in ("s", "a", "r", "c", "s2"):
            arr = getattr(self, "buf_" + key)
            arr[:] = np.nan if key == "c" else 0.0
            if L:
                arr[:L] = f64(b[key])
        self.buf_ptr, self.buf_len = int(b["ptr"]), L
        self.sigma = float(st["sigma"])
        self.last_reward = float(st["last_reward"])
        self.frozen = bool(st.get("frozen", False))
        if "horizon" in st:  # states saved before the run's length was recorded keep the built one
            self.horizon, self.warmup = int(st["horizon"]), int(st["warmup"])
            self.horizon_origin = str(st["horizon_origin"])
            self.warmup_given = bool(st.get("warmup_given", self.warmup_given))
        self._schedule()
