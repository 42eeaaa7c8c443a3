"""The mixer interface: a policy over sources with floors, exhausted sources, history and exact state."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mixer.feedback import Feedback

__all__ = ["Mixer", "to_state", "from_state"]


def to_state(x: Any) -> Any:
    """Numpy arrays and scalars as plain Python lists/floats, so `torch.load(weights_only=True)` accepts them."""
    if isinstance(x, np.ndarray):
        return {"__nd__": x.tolist(), "dtype": str(x.dtype), "shape": list(x.shape)}
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, Mapping):
        return {k: to_state(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [to_state(v) for v in x]
    return x


def from_state(x: Any) -> Any:
    """Inverse of `to_state`."""
    if isinstance(x, Mapping):
        if "__nd__" in x:
            return np.array(x["__nd__"], dtype=x["dtype"]).reshape(x["shape"])
        return {k: from_state(v) for k, v in x.items()}
    if isinstance(x, list):
        return [from_state(v) for v in x]
    return x


class Mixer(ABC):
    """A policy that gives sampling weights over `n_sources` sources and learns from per-step `Feedback`.

    Subclasses set `self._policy` (a distribution over all sources) in `__init__` and `_update`; the
    base class applies the per-source `floor` (default: a tenth of uniform) and zeroes exhausted
    sources, records `history`, and round-trips its state exactly (including the RNG).

    Credit: a sampler calls `issue()` for each batch it draws and passes the returned id back in
    `Feedback.weights_id`; `update` then credits the weights that drew that batch, however many
    batches a loader prefetched in between (a batch made of several draws names each id with its
    share and is credited their share-weighted mean). Inside `_update`, `self.used_weights` holds
    them.
    """

    #: How many issued, not yet credited weights are kept (a loader's prefetch depth is far below).
    max_pending: int = 256

    name: str = "mixer"

    def __init__(
        self,
        n_sources: int,
        floor: float | None = None,
        seed: int = 0,
        names: Sequence[str] | None = None,
        record_history: bool = True,
    ) -> None:
        if n_sources < 1:
            raise ValueError(f"n_sources must be >= 1, got {n_sources}")
        self.n_sources = int(n_sources)
        self.floor = 0.1 / self.n_sources if floor is None else float(floor)
        if not 0.0 <= self.floor * self.n_sources < 1.0:
            raise ValueError(
                f"floor {self.floor} is too large for {n_sources} sources (need floor * n < 1)"
            )
        self.names = list(names) if names is not None else [str(i) for i in range(self.n_sources)]
        if len(self.names) != self.n_sources:
            raise ValueError(f"{len(self.names)} names for {n_sources} sources")
        self.seed = int(seed)
        self.rng = np.random.default_rng(seed)
        self.step = 0
        self.active = np.ones(self.n_sources, dtype=bool)
        self.record_history = record_history
        self.history: list[dict] = []
        self._policy = np.full(self.n_sources, 1.0 / self.n_sources)
        self.used_weights = self._policy.copy()
        self._issued: dict[int, np.ndarray] = {}
        self._issue_seq = 0
        #: the learnability the policy started from (`set_prior`), or None
        self.prior_learnability: np.ndarray | None = None

    # ---- what subclasses implement ----------------------------------------------------------
    @abstractmethod
    def _update(self, fb: Feedback) -> None:
        """Learn from one step's feedback and set `self._policy` for the next step."""

    def _state(self) -> dict:
        """Policy-specific state (numpy arrays allowed); the base saves `_policy`, rng, step, history."""
        return {}

    def _load_state(self, state: dict) -> None:  # noqa: B027 - optional hook
        """Restore what `_state` returned."""

    # ---- the interface ----------------------------------------------------------------------
    def weights(self) -> np.ndarray:
        """The sampling distribution for the next step: floors applied, exhausted sources at zero."""
        p = self._policy
        p = np.where(self.active & np.isfinite(p) & (p > 0), p, 0.0)
        m = int(self.active.sum())
        if m == 0:
            raise RuntimeError("every source is exhausted; nothing left to sample")
        total = p.sum()
        p = (
            np.where(self.active, 1.0 / m, 0.0)
            if total <= 0 or not np.isfinite(total)
            else p / total
        )
        floor = min(self.floor, 0.5 / m)
        if floor > 0:
            p = np.where(self.active, (1.0 - m * floor) * p + floor, 0.0)
        return p / p.sum()

    def issue(self) -> tuple[int, np.ndarray]:
        """`weights()` for drawing one batch, and the id to send back as `Feedback.weights_id`."""
        w = self.weights()
        self._issue_seq += 1
        self._issued[self._issue_seq] = w
        while len(self._issued) > self.max_pending:
            del self._issued[next(iter(self._issued))]
        return self._issue_seq, w

    def _weights_used(self, weights_id: int | Mapping[int, float] | None) -> np.ndarray:
        if weights_id is None:
            return self.weights()
        shares = weights_id if isinstance(weights_id, Mapping) else {weights_id: 1.0}
        missing = [k for k in shares if k not in self._issued]
        if missing:
            raise ValueError(
                f"Feedback.weights_id={missing[0]} was not issued by this mixer, was already "
                f"credited, or is older than the last {self.max_pending} issued weights"
            )
        total = float(sum(shares.values()))
        used = sum(self._issued.pop(k) * (float(s) / total) for k, s in shares.items())
        return np.asarray(used, dtype=np.float64)

    def update(self, feedback: Feedback | Mapping[str, Any]) -> None:
        """Learn from one step's feedback; call once per step.

        The step is credited to the weights named by `feedback.weights_id` (see `issue`), or to
        the current `weights()` when it is None (a loop that draws and trains in lockstep).
        """
        fb = feedback if isinstance(feedback, Feedback) else Feedback(**feedback)
        if fb.n_sources != self.n_sources:
            raise ValueError(f"feedback has {fb.n_sources} sources, mixer has {self.n_sources}")
        self._credit(fb, self._weights_used(fb.weights_id))

    def _credit(self, fb: Feedback, used: np.ndarray) -> None:
        """One step of `update` with the weights `used` to draw its batch already resolved."""
        self.used_weights = used
        self.step += 1
        self._update(fb)
        if self.record_history:
            rec = {"step": self.step, "weights": [float(x) for x in used]}
            rec.update(fb.to_json())
            self.history.append(rec)

    def set_prior(
        self,
        learnability: Sequence[float] | np.ndarray,
        weights: Sequence[float] | np.ndarray | None = None,
    ) -> bool:
        """Start from what the build knows instead of from nothing: `learnability[i]` is the
        expected share of informative groups (a nonzero advantage) among the problems a sampler
        would draw from source i, from the curated difficulty (`mixer.problems.prior`), and
        `weights` (default: proportional to it) where that sampler's draws would fall with no
        source mixer at all. A problem sampler built with a difficulty prior calls this. A policy
        that learns starts from the weights and seeds its estimates with the learnability
        (`_start_from`); one that does not (uniform, static, ODM's EXP3) keeps its weights. Call
        before the first update; returns whether the policy took it."""
        v = self._check_prior(learnability, "learnability")
        w = v if weights is None else self._check_prior(weights, "weights")
        if w.sum() <= 0:
            w = np.ones(self.n_sources)
        if self.step:
            raise RuntimeError("set_prior after the first update would discard what was learnt")
        took = self._start_from(v, w / w.sum())
        self.prior_learnability = v.copy() if took else None
        return took

    def _check_prior(self, x: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
        v = np.asarray(x, dtype=np.float64).reshape(-1)
        if v.shape != (self.n_sources,) or not np.isfinite(v).all() or (v < 0).any():
            raise ValueError(f"{what} must be {self.n_sources} finite numbers >= 0, got {x!r}")
        return v

    def _start_from(self, learnability: np.ndarray, weights: np.ndarray) -> bool:
        """Take the prior (see `set_prior`): by default the first weights are `weights`."""
        self._policy = weights.copy()
        return True

    def set_horizon(self, steps: int, origin: str = "the trainer") -> bool:
        """Tell the policy how many updates the run will make (`origin` says who knows it, for the
        log). Policies that plan over the run's length (ACODM's warm-up and progress feature,
        ProxyACODM's segments) use it; a length the user gave the constructor is kept. Returns
        whether the policy took it."""
        return False

    def set_exhausted(self, source: int, exhausted: bool = True) -> None:
        """Mark a source as run out (weight 0 from now on) or available again."""
        self.active[source] = not exhausted

    def save_history(self, path: str | Path) -> Path:
        """Write `history` as JSONL: one line per step with step, weights and feedback fields."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w") as f:
            f.write(json.dumps({"names": self.names, "policy": self.name}) + "\n")
            for rec in self.history:
                f.write(json.dumps(rec) + "\n")
        return path

    def state_dict(self) -> dict:
        """Everything needed to resume exactly, as plain Python containers."""
        return to_state(
            {
                "policy_name": self.name,
                "n_sources": self.n_sources,
                "floor": self.floor,
                "step": self.step,
                "active": self.active.copy(),
                "rng": self.rng.bit_generator.state,
                "history": [dict(h) for h in self.history],
                "_policy": self._policy.copy(),
                "used_weights": self.used_weights.copy(),
                "issued": [[k, v.copy()] for k, v in self._issued.items()],
                "issue_seq": self._issue_seq,
                "prior_learnability": (
                    None if self.prior_learnability is None else self.prior_learnability.copy()
                ),
                "policy_state": self._state(),
            }
        )

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore a `state_dict()`; the next `weights()` and draws match the saved run."""
        st = from_state(dict(state))
        if st["policy_name"] != self.name or st["n_sources"] != self.n_sources:
            raise ValueError(
                f"state is for {st['policy_name']} with {st['n_sources']} sources, "
                f"not {self.name} with {self.n_sources}"
            )
        self.floor = float(st["floor"])
        self.step = int(st["step"])
        self.active = np.asarray(st["active"], dtype=bool).copy()
        self.rng.bit_generator.state = st["rng"]
        self.history = [dict(h) for h in st["history"]]
        self._policy = np.asarray(st["_policy"], dtype=np.float64).copy()
        # states saved before weights ids existed have none pending
        self.used_weights = np.asarray(
            st.get("used_weights", self._policy), dtype=np.float64
        ).copy()
        self._issued = {int(k): np.asarray(v, dtype=np.float64) for k, v in st.get("issued", [])}
        self._issue_seq = int(st.get("issue_seq", 0))
        prior = st.get("prior_learnability")
        self.prior_learnability = None if prior is None else np.asarray(prior, np.float64).copy()
        self._load_state(st["policy_state"])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_sources={self.n_sources}, step={self.step})"
