"""Per-step training feedback for a mixer, and helpers that compute it from per-sample rewards."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "Feedback",
    "WeightsId",
    "grpo_advantages",
    "per_source_mean",
    "feedback_from_rewards",
    "weights_id_of",
    "zero_advantage_share",
]

#: The weights a step's batch was drawn with: one id from `Mixer.issue()`, or {id: share} when the
#: batch mixes draws made with different weights (e.g. micro-batches drawn across an update).
WeightsId = int | dict[int, float]

_ARRAY_FIELDS = ("counts", "loss", "reward", "pass_rate", "adv_abs", "dev_loss", "zero_adv")


def _vec(x: object, n: int, name: str) -> np.ndarray:
    if x is None:
        return np.full(n, np.nan)
    a = np.asarray(x, dtype=np.float64).reshape(-1)
    if a.shape[0] != n:
        raise ValueError(f"feedback.{name} has {a.shape[0]} entries, expected {n} (one per source)")
    a = a.copy()
    a[~np.isfinite(a)] = np.nan
    return a


@dataclass(init=False)
class Feedback:
    """What the trainer observed in one step, one entry per source.

    `counts` is how many examples of each source the step used; every other array holds NaN for a
    source that was not drawn (or whose value is unknown). `grad_sketch` is an (n_sources, k) array:
    row i is the sketched gradient (see `GradientSketch`) of source i's mean loss in the step (a NaN
    row for a source not drawn). `target_sketch` is a (k,) sketch, with the same
    `GradientSketch`, of the gradient of what training should improve: a held-out loss (for RL, a
    held-out loss such as the NLL of verified reference solutions, or a policy-gradient loss on
    held-out prompts). `dev_loss` is, per source, the loss on a fixed held-out slice of that source
    measured after the step (the same examples every time, so its changes are the model's, not
    sampling noise); `eval_loss` is an optional held-out loss value. `weights_id` names the
    weights that drew the step's batch (`Mixer.issue()`), so a loader that prefetches batches still
    credits the right action: one id, or {id: share} when the batch mixes several draws (the
    mixer credits their share-weighted mean); None means "the mixer's current weights".
    `zero_adv` is, per source, the share of its groups (one prompt's completions) whose rewards
    were all equal: a GRPO step learns nothing from them.
    """

    # The per-source arrays are never None once built: an absent signal is all NaN.
    counts: np.ndarray
    loss: np.ndarray
    reward: np.ndarray
    pass_rate: np.ndarray
    adv_abs: np.ndarray
    dev_loss: np.ndarray
    grad_sketch: np.ndarray | None
    target_sketch: np.ndarray | None
    eval_loss: float | None
    extra: dict
    weights_id: WeightsId | None
    zero_adv: np.ndarray

    def __init__(
        self,
        counts: ArrayLike,
        loss: ArrayLike | None = None,
        reward: ArrayLike | None = None,
        pass_rate: ArrayLike | None = None,
        adv_abs: ArrayLike | None = None,
        dev_loss: ArrayLike | None = None,
        grad_sketch: ArrayLike | None = None,
        target_sketch: ArrayLike | None = None,
        eval_loss: float | None = None,
        extra: dict | None = None,
        weights_id: WeightsId | Mapping[Any, float] | None = None,
        zero_adv: ArrayLike | None = None,
    ) -> None:
        c = np.asarray(counts, dtype=np.float64).reshape(-1)
        n = c.shape[0]
        self.counts = np.where(np.isfinite(c), c, 0.0)
        self.loss = _vec(loss, n, "loss")
        self.reward = _vec(reward, n, "reward")
        self.pass_rate = _vec(pass_rate, n, "pass_rate")
        self.adv_abs = _vec(adv_abs, n, "adv_abs")
        self.dev_loss = _vec(dev_loss, n, "dev_loss")
        self.zero_adv = _vec(zero_adv, n, "zero_adv")
        self.grad_sketch = None
        if grad_sketch is not None:
            g = np.asarray(grad_sketch, dtype=np.float64)
            if g.ndim != 2 or g.shape[0] != n:
                raise ValueError(f"feedback.grad_sketch must be (n_sources={n}, k), got {g.shape}")
            g = g.copy()
            g[~np.isfinite(g).all(axis=1)] = np.nan
            self.grad_sketch = g
        self.target_sketch = None
        if target_sketch is not None:
            t = np.asarray(target_sketch, dtype=np.float64)
            if t.ndim != 1 or (
                self.grad_sketch is not None and t.shape[0] != self.grad_sketch.shape[1]
            ):
                k = "k" if self.grad_sketch is None else self.grad_sketch.shape[1]
                raise ValueError(f"feedback.target_sketch must be ({k},), got {t.shape}")
            self.target_sketch = t.copy() if np.isfinite(t).all() else None
        self.eval_loss = eval_loss if eval_loss is not None and np.isfinite(eval_loss) else None
        self.extra = extra if extra is not None else {}
        self.weights_id = _weights_id(weights_id)

    @property
    def n_sources(self) -> int:
        return int(self.counts.shape[0])

    def get(self, signal: str) -> np.ndarray:
        """The per-source array named `signal` (`loss`, `reward`, `pass_rate`, `adv_abs`, `counts`)."""
        if signal not in _ARRAY_FIELDS:
            raise ValueError(f"unknown feedback signal {signal!r}; choose one of {_ARRAY_FIELDS}")
        return getattr(self, signal)

    def to_json(self) -> dict:
        """A JSON-able dict (NaN becomes null); the gradient sketch is left out."""
        out: dict = {}
        for f in fields(self):
            if f.name in ("grad_sketch", "target_sketch"):
                continue
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                out[f.name] = [None if x != x else x for x in v.tolist()]
            elif f.name == "extra":
                if v:
                    out[f.name] = v
            elif f.name == "weights_id":
                if isinstance(v, dict):
                    out[f.name] = {str(k): x for k, x in v.items()}
                elif v is not None:
                    out[f.name] = v
            else:
                out[f.name] = v
        return out


def _weights_id(x: object) -> WeightsId | None:
    """One id as int; a mapping {id: share} with positive shares (a single id collapses to int)."""
    if x is None:
        return None
    if isinstance(x, Mapping):
        shares = {int(k): float(v) for k, v in x.items() if float(v) > 0}
        if not shares:
            raise ValueError(f"feedback.weights_id {dict(x)!r} has no positive share")
        return next(iter(shares)) if len(shares) == 1 else shares
    if isinstance(x, bool) or not isinstance(x, int | np.integer):
        raise ValueError(f"feedback.weights_id must be an int or {{id: share}}, got {x!r}")
    return int(x)


def weights_id_of(ids: Iterable[Any]) -> WeightsId | None:
    """The `Feedback.weights_id` of a batch from the weights id of each of its examples (None
    entries, examples no mixer drew, are skipped): one id, or {id: count}; None when none has one."""
    counts = Counter(int(i) for i in ids if i is not None and i == i)
    if not counts:
        return None
    return _weights_id(dict(counts))


def grpo_advantages(
    rewards: Sequence[float] | np.ndarray,
    group_ids: Sequence[object] | np.ndarray,
    scale: bool = True,
    eps: float = 1e-4,
) -> np.ndarray:
    """GRPO advantages: each reward minus its group's mean, divided by the group's std if `scale`."""
    r = np.asarray(rewards, dtype=np.float64).reshape(-1)
    _, inv = np.unique(np.asarray(group_ids, dtype=object).astype(str), return_inverse=True)
    ok = np.isfinite(r)
    g = inv.max() + 1 if len(inv) else 0
    cnt = np.bincount(inv[ok], minlength=g).astype(np.float64)
    s = np.bincount(inv[ok], weights=r[ok], minlength=g)
    mean = np.divide(s, cnt, out=np.zeros(g), where=cnt > 0)
    dev = np.where(ok, r - mean[inv], 0.0)
    adv = dev
    if scale:
        var = np.bincount(inv, weights=dev**2, minlength=g)
        std = np.sqrt(np.divide(var, cnt - 1, out=np.zeros(g), where=cnt > 1))
        adv = dev / (std[inv] + eps)
    return np.where(ok, adv, 0.0)


def per_source_mean(
    values: Sequence[float] | np.ndarray, source_ids: Sequence[int] | np.ndarray, n_sources: int
) -> np.ndarray:
    """Mean of finite `values` per source id in [0, n_sources); NaN where a source has none."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    s = np.asarray(source_ids, dtype=np.int64).reshape(-1)
    ok = np.isfinite(v)
    cnt = np.bincount(s[ok], minlength=n_sources).astype(np.float64)
    tot = np.bincount(s[ok], weights=v[ok], minlength=n_sources)
    out = np.full(n_sources, np.nan)
    np.divide(tot, cnt, out=out, where=cnt > 0)
    return out


def feedback_from_rewards(
    rewards: Sequence[float] | np.ndarray,
    source_ids: Sequence[int] | np.ndarray,
    n_sources: int,
    group_ids: Sequence[object] | np.ndarray | None = None,
    advantages: Sequence[float] | np.ndarray | None = None,
    losses: Sequence[float] | np.ndarray | None = None,
    pass_threshold: float = 1.0,
    count_groups: bool = True,
    weights_id: WeightsId | None = None,
) -> Feedback:
    """Build a `Feedback` from one step's per-sample (per-completion) data.

    reward = mean reward per source; pass_rate = share of samples with reward >= `pass_threshold`;
    adv_abs = mean |advantage|, taken from `advantages` or computed GRPO-style from `group_ids`;
    zero_adv = share of each source's groups whose finite rewards are all equal (or fewer than
    two), when `group_ids` are given.
    `counts` counts groups (prompts) when `count_groups` and group ids are given, else samples.
    `weights_id` names the weights that drew the batch (see `Feedback`).
    """
    r = np.asarray(rewards, dtype=np.float64).reshape(-1)
    s = np.asarray(source_ids, dtype=np.int64).reshape(-1)
    if r.shape != s.shape:
        raise ValueError(f"rewards ({r.shape[0]}) and source_ids ({s.shape[0]}) differ in length")
    if advantages is None and group_ids is not None:
        advantages = grpo_advantages(r, group_ids)
    adv_abs = None
    if advantages is not None:
        adv_abs = per_source_mean(np.abs(np.asarray(advantages, dtype=np.float64)), s, n_sources)
    passed = np.where(np.isfinite(r), (r >= pass_threshold).astype(np.float64), np.nan)
    if count_groups and group_ids is not None:
        g = np.asarray(group_ids, dtype=object).astype(str)
        counts = np.zeros(n_sources)
        seen: set[str] = set()
        for gi, si in zip(g, s, strict=True):
            if gi not in seen:
                seen.add(gi)
                counts[si] += 1
    else:
        counts = np.bincount(s, minlength=n_sources).astype(np.float64)
    loss = per_source_mean(losses, s, n_sources) if losses is not None else None
    return Feedback(
        counts=counts,
        reward=per_source_mean(r, s, n_sources),
        pass_rate=per_source_mean(passed, s, n_sources),
        adv_abs=adv_abs,
        loss=loss,
        weights_id=weights_id,
        zero_adv=None if group_ids is None else zero_advantage_share(r, s, group_ids, n_sources),
    )


def zero_advantage_share(
    rewards: Sequence[float] | np.ndarray,
    source_ids: Sequence[int] | np.ndarray,
    group_ids: Sequence[object] | np.ndarray,
    n_sources: int,
    tol: float = 1e-9,
) -> np.ndarray:
    """Per source, the share of its groups whose finite rewards are all equal (within `tol`) or
    fewer than two: the groups a GRPO step learns nothing from. NaN for a source with no group."""
    r = np.asarray(rewards, dtype=np.float64).reshape(-1)
    s = np.asarray(source_ids, dtype=np.int64).reshape(-1)
    _, first, inv = np.unique(
        np.asarray(group_ids, dtype=object).astype(str), return_index=True, return_inverse=True
    )
    inv = inv.reshape(-1)
    g = len(first)
    ok = np.isfinite(r)
    att = np.bincount(inv[ok], minlength=g)
    hi = np.full(g, -np.inf)
    lo = np.full(g, np.inf)
    np.maximum.at(hi, inv[ok], r[ok])
    np.minimum.at(lo, inv[ok], r[ok])
    zero = ((att < 2) | (hi - lo <= tol)).astype(np.float64)
    return per_source_mean(zero, s[first], n_sources)
