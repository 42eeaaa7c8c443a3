"""AC-ODM: actor-critic online data mixing (DDPG-style), with both networks trained, in numpy.

The networks are tiny and written with hand-derived gradients so one update costs tens to a few
hundred microseconds on a CPU (torch's per-op overhead would dominate at this size; they live in
`mixer.policies.actor_critic`, shared with `ProxyACODM`). The knobs are one `ACODMSettings`;
`deploy()` freezes a policy learnt in a proxy run for a target run. The AC-ODM paper's own state,
critic, reward and cloned warm-up, and the softmax allocation, lost their benchmarks and live in
`benchmarks/mixing/archive/paper_acodm.py` (docs/mixer.md, "ACODM").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mixer.feedback import Feedback
from mixer.policies.actor_critic import DEFAULT_HORIZON, N_FEATURES, _ActorCritic, _saved_policy
from mixer.policies.baselines import ADV_PER_INFORMATIVE, ODM, softmax
from mixer.policies.nets import param_views
from mixer.policies.sketch import alignment_scores, target_scores
from mixer.settings import resolve

__all__ = ["ACODM", "ACODMSettings", "DEFAULT_HORIZON", "LOGIT_REACH", "N_FEATURES", "REWARDS"]

#: Per reward: what it reads from Feedback (named in the error when a trainer never sends it), and
#: the signal of the ODM that chooses the weights during warm-up.
REWARDS: dict[str, tuple[str, str]] = {
    "advantage": ("adv_abs", "adv_abs"),
    "heldout": ("dev_loss (a fixed held-out slice's loss per source)", "loss"),
    "target": ("grad_sketch and target_sketch", "loss"),
    "alignment": ("grad_sketch", "loss"),
    "learnability": ("pass_rate", "adv_abs"),
    "informative": ("zero_adv (the share of groups with all rewards equal)", "adv_abs"),
    "contribution": ("zero_adv (the share of groups with all rewards equal)", "adv_abs"),
    "progress": ("loss or reward", "loss"),
}
#: Logits the actor's per-source bias can move within the settling window (see `settle_frac`):
#: the actor's default step size is this over the window's updates.
LOGIT_REACH = 3.0
_BUFFERS = (
    "s",
    "a",
    "r",
    "c",
    "s2",
)  # the replay buffer: state, action, reward, coefficients, next


@dataclass(frozen=True)
class ACODMSettings:
    """`ACODM`'s knobs, validated once (their meaning: the `ACODM` docstring and docs/mixer.md).

    None for `actor_lr`, `critic_lr`, `warmup`, `sigma_decay` and `horizon`: sized from the run's
    length; for `odm_signal`: the reward's (`REWARDS`)."""

    #: the rewards `reward` may name (a subclass of the settings may allow more)
    REWARDS: ClassVar[dict[str, tuple[str, str]]] = REWARDS

    reward: str = "advantage"
    hidden: int = 8
    gamma: float = 0.5
    tau: float = 0.05
    actor_lr: float | None = None
    critic_lr: float | None = None
    batch_size: int = 16
    buffer_size: int = 512
    warmup: int | None = None
    warmup_frac: float = 0.05
    sigma: float = 0.3
    sigma_min: float = 0.05
    sigma_decay: float | None = None
    settle_frac: float = 0.2
    entropy: float = 0.1
    ema: float = 0.8
    horizon: int | None = None
    train_every: int = 1
    odm_signal: str | None = None
    smoothing: float = 0.0
    source_bias: bool = True
    power: float = 1.0

    def __post_init__(self) -> None:
        rules = {
            "reward": (self.reward in self.REWARDS, f"one of {tuple(self.REWARDS)}"),
            "horizon": (self.horizon is None or self.horizon >= 1, ">= 1 (the run's length)"),
            "settle_frac": (0.0 < self.settle_frac <= 1.0, "in (0, 1]"),
            "power": (self.power > 0, "> 0"),
            "warmup_frac": (0.0 <= self.warmup_frac <= 1.0, "in [0, 1]"),
            "smoothing": (0.0 <= self.smoothing < 1.0, "in [0, 1)"),
        }
        for name, (ok, rule) in rules.items():
            if not ok:
                raise ValueError(f"ACODM {name} must be {rule}, got {getattr(self, name)!r}")


class ACODM(_ActorCritic):
    """Actor-critic online data mixing.

    State: per source, normalised levels and trends (moving averages of per-step changes) of loss
    and reward, mean |advantage|, pass rate, gradient alignment (with the held-out gradient when
    one is given, else with the other sources), share of draws (overall and recent), and training
    progress (`N_FEATURES` columns). Action: the sampling weights, softmax of the actor's
    per-source logits plus Gaussian exploration noise (std `sigma`, decaying to `sigma_min`).
    Reward: per-source coefficients c_i, weighted by the weights a actually used (sum_i a_i c_i):
      - `"advantage"` (default): mean |GRPO advantage| of source i;
      - `"learnability"`: p_i (1 - p_i) of source i's pass rate in the step: zero for a solved
        and for a hopeless source;
      - `"informative"`: the share of source i's groups that were informative (1 - zero_adv_i);
      - `"contribution"`: the share of all the step's groups that came from source i and were
        informative;
      - `"heldout"`: the drop of source i's held-out loss (`feedback.dev_loss`, a fixed held-out
        slice per source) since it was last measured: progress that is not memorisation;
      - `"target"`: <g_i, t> / |t|, source i's mean-loss gradient (`feedback.grad_sketch`)
        projected on the gradient t of a held-out objective (`feedback.target_sketch`): the
        first-order drop of the held-out loss one step on that source buys;
      - `"alignment"`: cos(g_i, sum_{j != i} g_j) from `feedback.grad_sketch`;
      - `"progress"`: drop of source i's training loss, or rise of its reward, since last seen,
        plus the drop of `feedback.eval_loss` when given.
    Coefficients are scaled by a running RMS that starts from the first observation and is
    winsorised at 3 RMS (so raw rewards of any magnitude steer alike). The critic learns each
    source's value u_i(s) (a regression of c_i on the state, no bootstrap) and the actor ascends
    sum_i max(u_i, 0)^`power` log a_i + `entropy` * H(a), whose optimum is a_i ~ max(u_i, 0)^power:
    with power 1 a source worth twice as much gets twice the weight (power 2: four times), and no
    single source takes everything. Sources of no value fall to the floor.
    Learning: a replay buffer, target networks with soft updates (`tau`), Adam. For the first
    `warmup` steps (default `warmup_frac` of the `horizon`, at least 1) the executed weights
    follow an internal ODM and the networks learn off-policy. Networks are updated every
    `train_every` steps; `smoothing` in [0, 1) blends each new action with the previous weights;
    `source_bias=False` drops the per-source bias terms of actor and critic. `deploy()` freezes
    the learnt policy for a new run; `policy_file=` loads a saved one and deploys it.
    Settings: an `ACODMSettings` (`settings=`) or its fields as keywords (the others: `hidden`
    width, `gamma`, `actor_lr`/`critic_lr`, minibatch `batch_size`, `buffer_size`, `ema`, the
    feature smoothing, `horizon`, the run's length in updates: None lets a trainer adapter set it
    with `set_horizon`, else `DEFAULT_HORIZON` is assumed and said, `odm_signal`, the warm-up
    ODM's signal); other keywords are `Mixer`'s.
    """

    name = "acodm"
    settings_class: ClassVar[type[ACODMSettings]] = ACODMSettings

    def __init__(
        self,
        n_sources: int,
        settings: ACODMSettings | None = None,
        policy_file: str | Path | None = None,
        **kw: Any,
    ) -> None:
        self.settings = st = resolve(self.settings_class, settings, kw)
        a_lr, c_lr = (1e-2 if lr is None else lr for lr in (st.actor_lr, st.critic_lr))
        super().__init__(n_sources, st.hidden, a_lr, c_lr, st.ema, st.horizon, st.source_bias, **kw)
        self.lr_given = (st.actor_lr is not None, st.critic_lr is not None)
        self.reward_kind, self.warmup_frac = st.reward, st.warmup_frac
        self.warmup_given = st.warmup is not None
        self.warmup = (
            max(1, int(round(st.warmup_frac * self.horizon)))
            if st.warmup is None
            else int(st.warmup)
        )
        self.sigma, self.sigma_min = float(st.sigma), float(st.sigma_min)
        self.sigma_start = self.sigma
        self.sigma_decay_given = st.sigma_decay is not None
        self.sigma_decay = 1.0 if st.sigma_decay is None else float(st.sigma_decay)
        self.train_every = max(1, int(st.train_every))
        self.frozen = False
        n, f = self.n_sources, self.n_features
        # target networks
        self.actor_t_flat, self.critic_t_flat = self.actor_flat.copy(), self.critic_flat.copy()
        self.actor_t = param_views(self.actor_t_flat, self._actor_shapes)
        self.critic_t = param_views(self.critic_t_flat, self._critic_shapes)
        sig = st.odm_signal or st.REWARDS[st.reward][1]
        self.odm = ODM(n, signal=sig, floor=0.0, seed=self.seed, record_history=False)
        # replay buffer
        self.buffer_size = B = int(st.buffer_size)
        self.buf_s = np.zeros((B, n, f))
        self.buf_a = np.zeros((B, n))
        self.buf_r = np.zeros(B)
        self.buf_c = np.full((B, n), np.nan)
        self.buf_s2 = np.zeros((B, n, f))
        self.buf_ptr = 0
        self.buf_len = 0
        self.last_reward = float("nan")
        self._schedule()
        if policy_file is not None:
            self.load_policy(policy_file)

    # ---- reward -----------------------------------------------------------------------------
    def _coefficients(
        self, fb: Feedback, align: np.ndarray, proj: np.ndarray
    ) -> tuple[np.ndarray, float]:
        """Per-source reward coefficients (before action weighting) and an action-free bonus."""
        kind = self.reward_kind
        if kind == "heldout":
            return self.last_dev - fb.dev_loss, 0.0
        if kind == "target":
            return proj, 0.0
        if kind == "advantage":
            return fb.adv_abs.copy(), 0.0
        if kind == "learnability":
            return fb.pass_rate * (1.0 - fb.pass_rate), 0.0
        if kind == "informative":
            return 1.0 - fb.zero_adv, 0.0
        if kind == "contribution":
            return (1.0 - fb.zero_adv) * fb.counts / max(float(fb.counts.sum()), 1e-12), 0.0
        if kind == "alignment":
            return align, 0.0
        loss_drop = self.level[0] - fb.loss  # "progress"
        reward_rise = fb.reward - self.level[1]
        c = np.where(np.isfinite(loss_drop), loss_drop, reward_rise)
        bonus = 0.0
        if fb.eval_loss is not None and self.last_eval_loss is not None:
            bonus = self.last_eval_loss - fb.eval_loss
        return c, bonus

    def _scale(self, c: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Coefficients over a running RMS, winsorised at 3, so one outlier step cannot shrink the
        next hundred; 0 where not `ok`."""
        return self._scaled(c, ok, 0.0)

    def _scaled(self, c: np.ndarray, ok: np.ndarray, cbar: float) -> np.ndarray:
        """(c - cbar) over the running RMS of what `_scale` returned, clipped at 3."""
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

    # ---- learning ---------------------------------------------------------------------------
    def _train(self) -> None:
        st = self.settings
        B = min(st.batch_size, self.buf_len)
        idx = self.rng.integers(0, self.buf_len, size=B)
        S, A, C, S2 = self.buf_s[idx], self.buf_a[idx], self.buf_c[idx], self.buf_s2[idx]
        g, u = self._critic_gradient(S, A, np.isfinite(C), C, S2)
        z, ha = self._actor_fwd(self.actor, S)
        dz = self._actor_dz(S, A, softmax(z), u)
        ga = self._actor_grad(S, ha, dz)
        self.critic_opt.step(self.critic_flat, g)
        self.actor_opt.step(self.actor_flat, ga, ascend=True)
        for net, tgt in (
            (self.actor_flat, self.actor_t_flat),
            (self.critic_flat, self.critic_t_flat),
        ):
            tgt *= 1 - st.tau
            tgt += st.tau * net
        self.updates += 1

    def _critic_gradient(
        self, S: np.ndarray, A: np.ndarray, seen: np.ndarray, C: np.ndarray, S2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The critic's gradient on a minibatch, and its per-source values u there (before its
        step): u_i alone is source i's value per example (no shared part, no bootstrap)."""
        u, _, h = self._critic_fwd(self.critic, S)
        y = np.where(seen, C, 0.0)
        err = np.where(seen, u - y, 0.0) * (2.0 / max(int(seen.sum()), 1))
        return self._critic_grad(S, h, err.reshape(-1), np.zeros(len(S))), u

    def _actor_dz(self, S: np.ndarray, A: np.ndarray, a: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The gradient on the actor's logits: ascend sum_i max(u_i, 0)^power log a_i +
        entropy * H(a), whose optimum is a_i ~ max(u_i, 0)^power."""
        st = self.settings
        w = np.maximum(u, 0.0) ** st.power
        ge = -st.entropy * (np.log(a + 1e-12) + 1.0)
        dz2 = w - a * w.sum(-1, keepdims=True) + a * (ge - (a * ge).sum(-1, keepdims=True))
        return (dz2 / len(S)).reshape(-1)

    def critic_value(self, action: np.ndarray, state: np.ndarray | None = None) -> float:
        """Q(state, action) = sum_i a_i u_i(state) + v(state) under the current critic."""
        S = self.state if state is None else state
        u, v, _ = self._critic_fwd(self.critic, S)
        return float((np.asarray(action, dtype=np.float64) * u).sum() + v)

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
            self._policy = self._smoothed(new)
            return
        c, bonus = self._coefficients(fb, align, proj)  # before tracking (`progress`'s level)
        self._track(fb, align)
        s2 = self._features()
        if self.step < self.warmup:
            self.odm._credit(fb, used)  # the warm-up ODM is credited with what was executed
        ok = np.isfinite(c) & self.active
        if not ok.any() and self.buf_len == 0 and self.step >= max(2 * self.warmup, 50):
            raise ValueError(
                f"ACODM(reward={self.reward_kind!r}) got no usable feedback in {self.step} steps: "
                f"it needs Feedback.{self.settings.REWARDS[self.reward_kind][0]}; choose a "
                "reward that your trainer's feedback carries"
            )
        if ok.any():
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
            self._policy = self._smoothed(softmax(z + self.rng.normal(0.0, self.sigma, len(z))))
            self.sigma = max(self.sigma_min, self.sigma * self.sigma_decay)

    def _smoothed(self, new: np.ndarray) -> np.ndarray:
        return (1 - self.settings.smoothing) * new + self.settings.smoothing * self._policy

    def _horizon_changed(self) -> None:
        if not self.warmup_given:
            self.warmup = max(1, int(round(self.warmup_frac * self.horizon)))
        self._schedule()

    def _schedule(self) -> None:
        """What the run's length sizes (unless given): the exploration noise decays from `sigma`
        to `sigma_min` over the first `settle_frac` of the run, and the actor and critic step so
        that the actor's per-source bias can move `LOGIT_REACH` logits in that window (Adam moves
        a parameter about its step size per update): the policy settles within the run."""
        window = max(1.0, self.settings.settle_frac * self.horizon)
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
        if c is not None and c.max() > 0:
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
                f"{self.settings.settle_frac:.0%}"
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
                **{key: getattr(self, "buf_" + key)[:L].copy() for key in _BUFFERS},
                **{"ptr": self.buf_ptr, "len": L},
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
        for key in _BUFFERS:
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
