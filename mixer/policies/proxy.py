"""AC-ODM in proxy mode: an actor-critic mixing policy learnt over whole proxy runs, then transferred.

One run's own signals are too weak and too myopic to tell which source pays off later (see
`benchmarks/RESULTS.md`, "Mixer on training runs"). The AC-ODM paper's proxy mode learns the
policy on cheap proxy runs (a smaller model, or the same model on other seeds) and applies it to
the target run. Here the credit for a mixture is the *whole-run* outcome it leads to:

    mixer = ProxyACODM(n_sources, horizon=steps)
    for run in range(n_proxy_runs):                       # cheap proxy runs
        mixer.start_run(eval_loss=heldout_loss(model))
        for step in range(steps):
            ...train on mixer.weights(), then
            mixer.update(Feedback(..., eval_loss=heldout_loss(model) if at a segment end else None))
        mixer.end_run()                                     # learns from this run's outcome
    mixer.deploy()                                          # greedy, no further learning
    state = mixer.state_dict()                              # load it into the target run's mixer
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mixer.feedback import Feedback
from mixer.policies.actor_critic import _ActorCritic, _saved_policy
from mixer.policies.baselines import softmax
from mixer.policies.nets import Adam
from mixer.policies.sketch import alignment_scores

__all__ = ["ProxyACODM"]


class ProxyACODM(_ActorCritic):
    """AC-ODM's proxy mode: the critic is fitted to whole-run outcomes over many runs.

    Each run is cut into `segments` segments of `horizon // segments` steps. At a segment's start
    the weights are set to softmax(z(s) + noise) (actor logits z of the state s, the same
    `N_FEATURES` state as `ACODM`; Gaussian noise of std `explore`, drawn once per segment while
    learning) and held for the whole segment, so a segment's mixture differs enough between runs
    to measure what it does. With chance `explore_random` a learning segment instead takes a
    uniform draw from the simplex, so the critic keeps seeing every kind of mixture even once
    the actor is confident (without it, an actor that settles early on a corner of the simplex
    stops exploring: noise on large logits changes nothing). The trainer reports a held-out objective (lower is better) as
    `Feedback.eval_loss`, or the mean of `Feedback.dev_loss`, at least at segment ends (every step
    is fine), and its value before training through `start_run(eval_loss=...)`.

    `end_run()` turns segment k of the run into the example (s_k, a_k, G_k), where G_k is the
    drop of the held-out objective from the segment's start to the run's end (with
    `gamma` < 1, later drops are discounted per segment): the credit a mixture gets is what
    followed it, not its one-step effect. The critic
        Q(s, a) = sum_i (u_i(s) a_i - kappa_i a_i^2 / 2) + v(s),   kappa_i >= 0
    (diminishing returns per source, so its best mixture is interior) is fitted by least squares
    to the standardised G over every run so far (`fit_steps` Adam minibatch steps after each run,
    L2 `weight_decay`), and the actor ascends Q(s, softmax(z(s))) + `entropy` * H.

    `deploy()` stops learning and exploring: the weights are the actor's greedy ones, recomputed
    from the state at each segment start (a run longer than `horizon` keeps its last segment's). `state_dict()` carries everything; load it into a
    `ProxyACODM` with the same sources and `horizon` for the target run. Runs can be collected in
    parallel: `end_run(learn=False)` returns the run's examples, and `fit_runs(examples)` fits on
    examples from any number of runs. `policy_file=` loads a saved policy at construction (for
    adapters that build the mixer by name from keywords). `hidden`, `ema`, `horizon` and
    `source_bias` are as in `ACODM`.
    """

    horizon_can_change = False  # the segments are cut by the horizon at the run's start

    name = "acodm-proxy"

    def __init__(
        self,
        n_sources: int,
        segments: int = 4,
        explore: float = 1.0,
        explore_random: float = 0.25,
        gamma: float = 1.0,
        fit_steps: int = 300,
        batch_size: int = 64,
        weight_decay: float = 1e-3,
        max_examples: int = 20_000,
        entropy: float = 0.01,
        critic_lr: float = 1e-2,
        actor_lr: float = 1e-2,
        policy_file: str | Path | None = None,
        **kw,
    ) -> None:
        kw.pop("reward", None)  # accepted for callers that pass ACODM's keywords; unused
        super().__init__(n_sources, actor_lr=actor_lr, critic_lr=critic_lr, **kw)
        self.reward_kind = "outcome"
        self.gamma, self.entropy, self.batch_size = float(gamma), float(entropy), int(batch_size)
        if segments < 1 or segments > self.horizon:
            raise ValueError(f"segments must be in [1, horizon={self.horizon}], got {segments}")
        if explore < 0:
            raise ValueError(f"explore must be >= 0, got {explore}")
        if not 0.0 <= explore_random <= 1.0:
            raise ValueError(f"explore_random must be in [0, 1], got {explore_random}")
        self.explore_random = float(explore_random)
        self.segments = int(segments)
        self.segment_len = -(-self.horizon // self.segments)  # ceil: the last segment may be short
        self.explore = float(explore)
        self.fit_steps, self.weight_decay = int(fit_steps), float(weight_decay)
        self.max_examples = int(max_examples)
        self.kappa_raw = np.zeros(self.n_sources)  # kappa = softplus(kappa_raw)
        self.kappa_opt = Adam(self.n_sources, critic_lr)
        self.deployed = False
        self.runs = 0
        n, f = self.n_sources, self.state.shape[1]
        self.ex_s = np.zeros((0, n, f))
        self.ex_a = np.zeros((0, n))
        self.ex_g = np.zeros(0)
        self.ex_grp = np.zeros(0, dtype=np.int64)  # comparison group per example, -1 for none
        self._reset_run(None)
        if policy_file is not None:
            self.load_policy(policy_file)

    # ---- runs ---------------------------------------------------------------------------
    def _reset_run(self, eval_loss: float | None) -> None:
        self.step = 0
        self.history = []
        self._reset_stats()
        self.last_eval_loss = None if eval_loss is None else float(eval_loss)
        self.state = self._features()
        self._seg_s: list[np.ndarray] = []
        self._seg_a: list[np.ndarray] = []
        self._seg_L: list[float | None] = []
        self._running = True
        self._start_segment()

    def start_run(self, eval_loss: float | None = None) -> None:
        """Begin a run: per-run statistics, step count and history restart; the learnt networks
        and examples stay. `eval_loss` is the held-out objective before training (else the first
        one reported counts as the start)."""
        self._reset_run(eval_loss)

    def _start_segment(self) -> None:
        z, _ = self._actor_fwd(self.actor, self.state)
        if self.deployed:
            self._policy = softmax(z)
        elif self.rng.random() < self.explore_random:  # anywhere on the simplex
            self._policy = self.rng.dirichlet(np.ones(self.n_sources))
        else:
            self._policy = softmax(z + self.rng.normal(0.0, self.explore, self.n_sources))
        self._seg_s.append(self.state.copy())
        self._seg_a.append(self.weights())
        self._seg_L.append(self.last_eval_loss)

    def _update(self, fb: Feedback) -> None:
        if not self._running:
            raise ValueError("this run has ended: call start_run() before the next run's updates")
        align = (
            alignment_scores(fb.grad_sketch)
            if fb.grad_sketch is not None
            else np.full(self.n_sources, np.nan)
        )
        self._track(fb, align)  # also keeps fb.eval_loss as last_eval_loss
        if fb.eval_loss is None and fb.dev_loss is not None and np.isfinite(fb.dev_loss).any():
            self.last_eval_loss = float(np.nanmean(fb.dev_loss))
        if self._seg_L and self._seg_L[0] is None and self.last_eval_loss is not None:
            self._seg_L[0] = self.last_eval_loss  # no start value given: the first report counts
        if self.step % self.segment_len == 0 and self.step < self.horizon:
            self.state = self._features()  # only a segment's start needs the state
            self._start_segment()

    def end_run(self, learn: bool = True) -> dict[str, np.ndarray]:
        """Finish a run: its examples (states, actions, returns), learnt from unless `learn=False`
        or deployed. Raises ValueError if no held-out objective was ever reported."""
        if not self._running:
            raise ValueError("no run in progress: call start_run() first")
        L = [*self._seg_L, self.last_eval_loss]
        if any(x is None for x in L):
            raise ValueError(
                "ProxyACODM needs the held-out objective at every segment start and at the run's "
                "end: pass Feedback.eval_loss (or dev_loss) at least every "
                f"{self.segment_len} steps, and start_run(eval_loss=...)"
            )
        drops = -np.diff(np.asarray(L, dtype=np.float64))
        G = np.zeros(len(drops))
        acc = 0.0
        for k in range(len(drops) - 1, -1, -1):
            acc = drops[k] + self.gamma * acc
            G[k] = acc
        ex = {"s": np.stack(self._seg_s), "a": np.stack(self._seg_a), "g": G}
        self._running = False
        if learn and not self.deployed:
            self.fit_runs([ex])
        return ex

    def deploy(self) -> None:
        """Stop learning and exploring: weights are the actor's greedy ones from now on."""
        self.deployed = True
        if self._seg_a:  # the current segment follows the greedy policy from now on
            z, _ = self._actor_fwd(self.actor, self._seg_s[-1])
            self._policy = softmax(z)
            self._seg_a[-1] = self.weights()

    def load_policy(self, path: str | Path) -> None:
        """Load a policy saved with `torch.save(mixer.state_dict(), path)` (or as JSON, `.json`)
        and start a run with it, so adapters can take `mixer_kwargs={"policy_file": path}`."""
        self.load_state_dict(_saved_policy(path, "ProxyACODM", "train one with proxy runs first"))
        self.start_run()

    # ---- learning -----------------------------------------------------------------------
    def fit_runs(
        self, examples: list[dict[str, np.ndarray]], groups: list[int] | None = None
    ) -> None:
        """Add examples from `end_run(learn=False)` of any runs and fit critic and actor.

        `groups` (one id per run, kept across calls: give each new group a new id) marks runs that share everything but the mixture, such as the
        same seed (common random numbers): the critic then fits the differences of returns within
        a group, at each segment, so the run-to-run noise the group shares cancels. Runs
        without a group partner teach it nothing then; without `groups` it fits the returns."""
        if groups is not None and len(groups) != len(examples):
            raise ValueError(f"{len(groups)} groups for {len(examples)} runs")
        if groups is not None and min(groups, default=0) < 0:
            raise ValueError(f"group ids must be >= 0, got {min(groups)}")
        for j, ex in enumerate(examples):
            self.runs += 1
            k = len(ex["g"])
            # one comparison group per (run group, segment); a run has at most `segments` of them
            gid = (
                np.full(k, -1) if groups is None else int(groups[j]) * self.segments + np.arange(k)
            )
            keep = self.max_examples
            self.ex_s = np.concatenate([self.ex_s, ex["s"]])[-keep:]
            self.ex_a = np.concatenate([self.ex_a, ex["a"]])[-keep:]
            self.ex_g = np.concatenate([self.ex_g, ex["g"]])[-keep:]
            self.ex_grp = np.concatenate([self.ex_grp, gid])[-keep:]
        N = len(self.ex_g)
        if N < 2:
            return
        y = (self.ex_g - self.ex_g.mean()) / (self.ex_g.std() + 1e-12)
        grouped = self.ex_grp >= 0
        members = [np.flatnonzero(self.ex_grp == g) for g in np.unique(self.ex_grp[grouped])]
        members = [m for m in members if len(m) > 1]
        free = np.flatnonzero(~grouped)
        if len(free) < 2 and not members:
            return
        for _ in range(self.fit_steps):
            rows, ids = [], []
            if len(free) >= 2:
                rows.append(free[self.rng.integers(0, len(free), min(self.batch_size, len(free)))])
                ids.append(np.full(len(rows[-1]), -1))
            if members:
                n_groups = max(1, self.batch_size // len(members[0]))
                for j, i in enumerate(self.rng.integers(0, len(members), n_groups)):
                    rows.append(members[i])
                    ids.append(np.full(len(members[i]), j))
            b = np.concatenate(rows)
            seg = np.concatenate(ids) if members else None
            self._fit_step(self.ex_s[b], self.ex_a[b], y[b], seg)

    def kappa(self) -> np.ndarray:
        """The critic's per-source curvature (diminishing returns)."""
        return np.logaddexp(0.0, self.kappa_raw)

    def critic_value(self, action: np.ndarray, state: np.ndarray | None = None) -> float:
        """Q(state, action) in standardised-return units."""
        u, v, _ = self._critic_fwd(self.critic, self.state if state is None else state)
        a = np.asarray(action, dtype=np.float64)
        return float((a * u).sum() - 0.5 * (self.kappa() * a * a).sum() + v)

    def _fit_step(
        self, S: np.ndarray, A: np.ndarray, y: np.ndarray, seg: np.ndarray | None = None
    ) -> None:
        """One Adam step of critic and actor; rows with the same `seg` id >= 0 are a group whose
        errors are centred (the gradient of the centred squared error is the centred error)."""
        B = S.shape[0]
        u, v, h = self._critic_fwd(self.critic, S)
        kap = self.kappa()
        q = (A * u).sum(1) - 0.5 * (A * A * kap).sum(1) + v
        e = q - y
        if seg is not None:
            for g in np.unique(seg[seg >= 0]):
                m = seg == g
                e[m] -= e[m].mean()
        err = e * (2.0 / B)
        g = self._critic_grad(S, h, (err[:, None] * A).reshape(-1), err)
        g += self.weight_decay * self.critic_flat
        gk = -0.5 * (err[:, None] * A * A).sum(0) / (1 + np.exp(-self.kappa_raw))
        # actor: ascend Q(s, softmax(z)) + entropy * H, with the critic before its step
        p = self.actor
        z, ha = self._actor_fwd(p, S)
        a = softmax(z)
        gi = u - kap * a - self.entropy * (np.log(a + 1e-12) + 1.0)
        dz = (a * (gi - (a * gi).sum(-1, keepdims=True)) / B).reshape(-1)
        ga = self._actor_grad(S, ha, dz) - self.weight_decay * self.actor_flat
        self.critic_opt.step(self.critic_flat, g)
        self.kappa_opt.step(self.kappa_raw, gk)
        self.actor_opt.step(self.actor_flat, ga, ascend=True)
        self.updates += 1

    def _horizon_changed(self) -> None:
        if self.step:
            raise RuntimeError("ProxyACODM's horizon cannot change once the run has started")
        if self.segments > self.horizon:
            raise ValueError(f"segments={self.segments} exceeds the run's {self.horizon} updates")
        self.segment_len = -(-self.horizon // self.segments)

    def _horizon_effects(self) -> str:
        return f"{self.segments} segments of {self.segment_len} updates"

    # ---- state --------------------------------------------------------------------------
    def _state(self) -> dict:
        st = super()._state()
        st["proxy"] = {
            "kappa_raw": self.kappa_raw.copy(),
            "kappa_opt": self.kappa_opt.state(),
            "deployed": self.deployed,
            "runs": self.runs,
            "ex_s": self.ex_s.copy(),
            "ex_a": self.ex_a.copy(),
            "ex_g": self.ex_g.copy(),
            "ex_grp": self.ex_grp.copy(),
            "seg_s": [x.copy() for x in self._seg_s],
            "seg_a": [x.copy() for x in self._seg_a],
            "seg_L": [float("nan") if x is None else float(x) for x in self._seg_L],
            "running": self._running,
        }
        return st

    def _load_state(self, st: dict) -> None:
        super()._load_state(st)
        p = st["proxy"]
        f64 = lambda x: np.asarray(x, dtype=np.float64).copy()  # noqa: E731
        self.kappa_raw = f64(p["kappa_raw"])
        self.kappa_opt.load(p["kappa_opt"])
        self.deployed = bool(p["deployed"])
        self.runs = int(p["runs"])
        n, f = self.n_sources, self.state.shape[-1]
        self.ex_s = f64(p["ex_s"]).reshape(-1, n, f)
        self.ex_a = f64(p["ex_a"]).reshape(-1, n)
        self.ex_g = f64(p["ex_g"]).reshape(-1)
        self.ex_grp = np.asarray(p["ex_grp"], dtype=np.int64).reshape(-1).copy()
        self._seg_s = [f64(x) for x in p["seg_s"]]
        self._seg_a = [f64(x) for x in p["seg_a"]]
        self._seg_L = [None if not np.isfinite(x) else float(x) for x in p["seg_L"]]
        self._running = bool(p["running"])
