"""Source weights that follow the problem model, and ACODM's correction on top of them.

`ModelAllocation` ("model"): each step the weights are the allocation of the problem sampler's
model (`FrontierSampler.model_allocation`: each source's share of the expected informative groups
among the problems the model would draw, with optimism for sources it knows little about lately).
`ACODMResidual` ("acodm-residual", the default of `FrontierSampler`): that allocation times
exp(rho), rho a per-source residual in log space, zero at the start, chosen by an actor-critic:
the critic learns each source's value per informative group from the trainer's evaluation (how
much the target improves per informative group of that source drawn, a signal that does not grow
with the source's share), the actor moves rho towards the critic's regularised optimum, so a
source whose groups surely hurt the target (its value surely below 0, the absolute test) or help
it surely less than a well-measured other's is held down, and
otherwise the weights stay at the model's allocation. Without an evaluation in the feedback the
critic learns nothing and rho stays 0. docs/mixer.md, "The default source weights".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mixer.feedback import Feedback
from mixer.log import logger
from mixer.policies.base import Mixer

__all__ = ["ACODMResidual", "Allocation", "CorrectionSettings", "ModelAllocation"]

#: The critic's prior variance of the per-step intercept (what the target gains whatever is
#: drawn), in units of the running mean square of the gains.
INTERCEPT_VAR = 0.25
#: A source is a reference for the others once the model rates it at least this share of the
#: most learnable source's learnability and this many informative groups of it were drawn lately.
LIVE, MIN_DRAWN = 0.25, 5.0
#: The critic's drops are winsorised at this many running RMS (a tiny first drop would otherwise
#: make the next ones outliers that the intercept and values never forget).
CLIP = 3.0
#: The running RMS of the drops is their plain RMS over the first 1 / SCALE_RATE of them, then a
#: moving average with this weight (one drop alone set it before: a small first drop made the
#: critic read noise as evidence, mixing-generated.md "The flat-evaluation defect").
SCALE_RATE = 0.05
#: The model's allocation: (optimism, group size or None, depth) -> (learnability, weights).
Allocation = Callable[..., tuple[np.ndarray, np.ndarray]]


class ModelAllocation(Mixer):
    """Weights recomputed each step from the problem model (see the module docstring).

    Args:
        optimism: logit standard deviations (of what a source's problems share) by which each
            problem's predicted pass logit is moved towards p = 1/2 before the allocation is
            computed (0: none; `FrontierSampler.model_allocation`).
        group_size: completions per group the allocation assumes (None: as many as the last
            groups had).
        depth: batches' worth of the problems the model rates best that the allocation counts.
    Without a model to follow (`follow`; a `FrontierSampler` calls it) the weights stay where
    `set_prior` put them (uniform without one).
    """

    name = "model"

    def __init__(
        self,
        n_sources: int,
        optimism: float = 1.0,
        group_size: int | None = None,
        depth: float = 1.0,
        **kw: Any,
    ) -> None:
        super().__init__(n_sources, **kw)
        if not optimism >= 0:
            raise ValueError(f"optimism must be >= 0, got {optimism}")
        if group_size is not None and group_size < 1:
            raise ValueError(f"group_size must be >= 1 or None, got {group_size}")
        if not depth > 0:
            raise ValueError(f"depth must be > 0, got {depth}")
        self.optimism, self.group_size, self.depth = float(optimism), group_size, float(depth)
        self._provider: Allocation | None = None
        #: the model's allocation the current weights were made from
        self.allocation = self._policy.copy()
        #: each source's expected chance of an informative group, as the model says now
        self.learnability = np.ones(self.n_sources)

    def follow(self, provider: Allocation) -> None:
        """Take the weights from `provider(optimism, group_size, depth)` (its second value)."""
        self._provider = provider

    def _allocate(self) -> np.ndarray | None:
        if self._provider is None:
            return None
        v, w = self._provider(self.optimism, self.group_size, self.depth)
        self.learnability = np.asarray(v, dtype=np.float64).copy()
        w = np.asarray(w, dtype=np.float64)
        return w / w.sum()

    def _start_from(self, learnability: np.ndarray, weights: np.ndarray) -> bool:
        alloc = self._allocate()
        if alloc is None:
            self.allocation, self.learnability = weights.copy(), learnability.copy()
        else:
            self.allocation = alloc
        self._policy = self._final(self.allocation)
        return True

    def _final(self, allocation: np.ndarray) -> np.ndarray:
        return allocation

    def _update(self, fb: Feedback) -> None:
        alloc = self._allocate()
        if alloc is not None:
            self.allocation = alloc
        self._learn(fb)
        self._policy = self._final(self.allocation)

    def _learn(self, fb: Feedback) -> None:  # noqa: B027 - optional hook
        """Learn from the step's feedback before the weights are made (subclasses)."""

    def _state(self) -> dict:
        return {"allocation": self.allocation.copy(), "learnability": self.learnability.copy()}

    def _load_state(self, st: dict) -> None:
        self.allocation = np.asarray(st["allocation"], dtype=np.float64).copy()
        self.learnability = np.asarray(st["learnability"], dtype=np.float64).copy()


@dataclass(frozen=True)
class CorrectionSettings:
    """The knobs of `ACODMResidual`'s actor-critic, validated once.

    correction: False switches the correction off (the weights are the model's allocation).
    strength: how far the actor lowers a source's log-weight per unit of the value it surely
        lacks against a reference source (relative to that one's value): a source surely worth
        nothing moves by -strength (at most -`reach`).
    reach: the lowest residual, in log-weight (the correction only lowers sources).
    threshold: standard errors of the critic's estimates: a source is lowered by the part of
        its shortfall against a reference that exceeds `threshold` standard errors of the
        difference (so while the evaluation does not tell the sources apart, nothing moves).
    dominant: a source whose share of the model's allocation is at least this is also lowered
        by what its value plus `threshold` standard errors falls short of the best such
        optimistic value among the references (optimism: a source taking most of the draws
        while the evaluation does not move is tested against the others; 1 or more, the
        default: never, since the allocation's learning check
        (`FrontierSampler.learning_factor`) now leaves such a source itself, and the optimism fired on sources
        largest because best).
    prior_std: the critic's prior std of a source's value per informative group, in units of
        the typical per-step gain.
    drift: variance the critic's per-source estimates gain per step (old evidence fades).
    actor_rate: share of the way to the critic's optimum the residual moves each step.
    harm: the absolute test: a source whose value plus `threshold` standard errors is below 0
        (its groups surely lower the evaluation, measured against the per-step intercept, not
        against another source) is lowered by `reach`. False: only the comparisons above.
    """

    correction: bool = True
    strength: float = 6.0
    reach: float = 5.0
    threshold: float = 1.75
    prior_std: float = 3.0
    drift: float = 0.0005
    actor_rate: float = 0.5
    dominant: float = 1.0
    harm: bool = True

    def __post_init__(self) -> None:
        for name in ("strength", "reach", "threshold", "drift", "dominant"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not self.prior_std > 0:
            raise ValueError(f"prior_std must be > 0, got {self.prior_std}")
        if not 0.0 < self.actor_rate <= 1.0:
            raise ValueError(f"actor_rate must be in (0, 1], got {self.actor_rate}")


class ACODMResidual(ModelAllocation):
    """The model's allocation with an actor-critic's correction in log space (module docstring).

    Critic: a Bayesian linear regression of the drop in `Feedback.eval_loss` between two
    evaluations on the informative groups drawn from each source in the steps between them (as a
    share of the groups of a step), with an intercept per step (what the target gains whatever
    is drawn): beta_i, source i's value per informative group, with a N(0, prior_std^2) prior
    (in units of the running RMS of the drops, each drop winsorised at `CLIP` 3 of them) that
    drifts by `drift` a step. The evaluation a step's feedback carries is taken as measured on
    the policy that generated that step's rollouts (before the step's update), so the drop
    between two evaluations is credited to the steps before the later one.
    Actor: a residual rho in log space, zero at the start, moving (`actor_rate`) towards
    -strength * max_j max(0, beta_j - beta_i - threshold * se(beta_j - beta_i)) / beta_j over
    the references j (sources the model rates learnable, with at least 5 informative groups
    drawn lately and beta_j > 0; se from the posterior covariance): a significance gate, so a
    source is lowered only by the part of its shortfall the evidence is sure of, and while the
    evaluation does not tell the sources apart (it does not move, or moves with noise only) rho
    stays at 0 and the weights are the model's allocation. A source holding at least `dominant`
    of the allocation is also lowered by strength * min(0, ucb_i - top) / top (ucb = beta plus
    `threshold` standard errors, top the largest ucb of a reference): optimism, so a source
    that takes most of the draws and does not move the evaluation (a source that looks
    learnable and teaches nothing) is tested against the sources drawn less (off by default:
    `dominant` 1). The absolute test (`harm`): a source whose beta plus `threshold` standard
    errors is below 0, its groups surely lowering the evaluation against the per-step intercept
    whatever the others give, moves towards -`reach`; it needs no reference, so it acts where the
    sources to compare with are drawn too little to be measured, and it cannot tell a harm from a
    falling intercept while the source's share barely varies. Bounded below by
    -`reach`; weights = allocation * exp(rho), normalised.
    Settings: a `CorrectionSettings` (`settings=`) or its fields as keywords.
    """

    name = "acodm-residual"

    def __init__(
        self, n_sources: int, settings: CorrectionSettings | None = None, **kw: Any
    ) -> None:
        """`kw`: the allocation's (`ModelAllocation`: optimism, group_size, depth) and the
        `Mixer`'s keywords, and the correction's settings as fields when `settings` is not given."""
        fields = set(CorrectionSettings.__dataclass_fields__)
        given = {k: kw.pop(k) for k in list(kw) if k in fields}
        if settings is not None and given:
            raise ValueError(f"give settings= or its fields ({', '.join(given)}), not both")
        self.settings = settings or CorrectionSettings(**given)
        super().__init__(n_sources, **kw)
        n = self.n_sources
        self.rho = np.zeros(n)
        # critic: theta = [intercept, beta_1..beta_n] over features [steps, x_1..x_n]
        self.theta = np.zeros(n + 1)
        self.cov = np.diag([INTERCEPT_VAR] + [self.settings.prior_std**2] * n)
        self.acc = np.zeros(n + 1)  # features since the last evaluation
        self.last_eval: float | None = None
        self.y_scale = 0.0  # running RMS of the drops (0: none seen)
        self.drops = 0  # drops the critic has read
        self.drawn_inf = np.zeros(n)  # informative groups drawn, recency-weighted

    def _final(self, allocation: np.ndarray) -> np.ndarray:
        if not self.settings.correction:
            return allocation
        w = allocation * np.exp(self.rho - self.rho.max())
        return w / w.sum()

    def _learn(self, fb: Feedback) -> None:
        st = self.settings
        counts = np.where(np.isfinite(fb.counts), fb.counts, 0.0)
        inf = counts * np.where(np.isfinite(fb.zero_adv), 1.0 - fb.zero_adv, 0.0)
        total = float(counts.sum())
        x = inf / total if total > 0 else np.zeros(self.n_sources)
        self.drawn_inf = 0.95 * self.drawn_inf + inf
        self.cov[1:, 1:] += st.drift * np.eye(self.n_sources) * st.prior_std**2
        if fb.eval_loss is not None and np.isfinite(fb.eval_loss):
            if self.last_eval is not None and self.acc[0] > 0:
                self._critic(self.acc, self.last_eval - float(fb.eval_loss))
            self.last_eval = float(fb.eval_loss)
            self.acc = np.zeros(self.n_sources + 1)
        self.acc += np.concatenate([[1.0], x])
        if st.correction:
            self.rho += st.actor_rate * (self._target() - self.rho)

    def _critic(self, phi: np.ndarray, y: float) -> None:
        if self.y_scale == 0.0:
            if y == 0.0:
                return
            self.y_scale = abs(y)
        yn = float(np.clip(y / self.y_scale, -CLIP, CLIP))
        self.drops += 1
        w = max(1.0 / self.drops, SCALE_RATE)
        self.y_scale = float(np.sqrt((1.0 - w) * self.y_scale**2 + w * y * y))
        P = self.cov
        Pphi = P @ phi
        k = Pphi / (1.0 + float(phi @ Pphi))
        self.theta = self.theta + k * (yn - float(phi @ self.theta))
        self.cov = P - np.outer(k, Pphi)

    def _target(self) -> np.ndarray:
        """The critic's optimum for rho (see the class docstring)."""
        st = self.settings
        n = self.n_sources
        if self.y_scale == 0.0:
            return np.zeros(n)
        beta = self.theta[1:]
        cov = self.cov[1:, 1:]
        var = np.maximum(np.diag(cov), 0.0)
        sd = np.sqrt(var)
        ref = (self.learnability >= LIVE * float(self.learnability.max())) & (
            self.drawn_inf >= MIN_DRAWN
        )
        out = np.zeros(n)
        if st.harm:  # absolute: its groups surely lower the evaluation, whatever the others do
            out = np.where(beta + st.threshold * sd < 0.0, -st.reach, out)
        if not ref.any():
            return out
        # evidence: lowered by the part of its shortfall against a reference that is significant
        j = np.flatnonzero(ref & (beta > 0))
        if j.size:
            d = beta[j][None, :] - beta[:, None]
            sdd = np.sqrt(np.maximum(var[j][None, :] + var[:, None] - 2.0 * cov[:, j], 1e-12))
            short = np.maximum(d - st.threshold * sdd, 0.0) / beta[j][None, :]
            short[j, np.arange(j.size)] = 0.0
            out = np.minimum(out, -st.strength * short.max(1))
        # optimism, only against a source that takes most of the draws: lowered by what its
        # optimistic value falls short of the best optimistic value
        big = self.allocation >= st.dominant
        if big.any():
            ucb = beta + st.threshold * sd
            top = float(ucb[ref].max())
            if top > 0:
                low = st.strength * np.minimum(ucb - top, 0.0) / top
                out = np.where(big, np.minimum(out, low), out)
        return np.maximum(out, -st.reach)

    def _state(self) -> dict:
        return {
            **super()._state(),
            "rho": self.rho.copy(),
            "theta": self.theta.copy(),
            "cov": self.cov.copy(),
            "acc": self.acc.copy(),
            "last_eval": self.last_eval,
            "y_scale": self.y_scale,
            "drops": self.drops,
            "drawn_inf": self.drawn_inf.copy(),
            "settings": asdict(self.settings),
        }

    def _load_state(self, st: dict) -> None:
        super()._load_state(st)
        f64 = lambda x: np.asarray(x, dtype=np.float64).copy()  # noqa: E731
        self.rho, self.theta, self.cov = f64(st["rho"]), f64(st["theta"]), f64(st["cov"])
        self.acc, self.drawn_inf = f64(st["acc"]), f64(st["drawn_inf"])
        self.last_eval = None if st["last_eval"] is None else float(st["last_eval"])
        self.y_scale = float(st["y_scale"])
        # a state saved before the count was kept: its scale is a moving average already
        self.drops = int(st.get("drops", round(1.0 / SCALE_RATE)))
        saved = st.get("settings")
        if saved is not None and saved != asdict(self.settings):
            logger.info("%s: resuming with settings other than the saved run's", self.name)
