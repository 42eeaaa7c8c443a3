"""Training problems for the frontier benchmark: B2's own sources, or B2-spread, whose sources each
mix B2's four task kinds, so that every source holds problems from already solved to hopeless for
the policy, as real sources do (an intro set is mostly easy, a contest set mostly too hard).

B2-spread takes its problems from B2's clean pools (`make_pools`): `copy` from `easy`, `add` from
`medium`, `max` from `medium2`, `muladd` from `hard`, with the same references. Each problem also
carries the label a source would give it (easy / medium / hard), for the label prior.

B2-hardmix (`hardmix`, a third task fixed before any arm ran on it) is built the same way with
more of every source above the policy's level, as contest sets are: two thirds of its problems
are `add` or `muladd`, and its `contest` source has no `copy` at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mixbench.tasks import make_pools

__all__ = ["Problems", "make_problems", "SPREAD_MIX", "HARDMIX_MIX", "LABELS", "TASKS"]

TASKS = ("spread", "b2", "hardmix")
#: Share of each kind in each B2-spread source (3000 problems each at full scale).
SPREAD_MIX = {
    "intro": {"copy": 0.50, "max": 0.30, "add": 0.15, "muladd": 0.05},
    "interview": {"copy": 0.20, "max": 0.30, "add": 0.30, "muladd": 0.20},
    "contest": {"copy": 0.05, "max": 0.15, "add": 0.20, "muladd": 0.60},
}
SPREAD_SIZE = 3000
#: Share of each kind in each B2-hardmix source (2000 problems each at full scale).
HARDMIX_MIX = {
    "intro": {"copy": 0.40, "max": 0.20, "add": 0.30, "muladd": 0.10},
    "interview": {"copy": 0.10, "max": 0.15, "add": 0.40, "muladd": 0.35},
    "contest": {"copy": 0.00, "max": 0.05, "add": 0.25, "muladd": 0.70},
}
HARDMIX_SIZE = 2000
_MIXES = {"spread": (SPREAD_MIX, SPREAD_SIZE), "hardmix": (HARDMIX_MIX, HARDMIX_SIZE)}
#: The B2 pool each kind is taken from.
_POOL_OF_KIND = {"copy": "easy", "add": "medium", "max": "medium2", "muladd": "hard"}
#: The label a person would give each kind (the label prior maps it to a difficulty).
LABELS = {"copy": "easy", "max": "medium", "add": "medium", "muladd": "hard"}
_B2_KIND = {
    "easy": "copy",
    "medium": "add",
    "medium2": "max",
    "hard": "muladd",
    "noisy": "add",
    "repeated": "add",
}


@dataclass
class Problems:
    """All training problems of one run: tokens, stored references, source and label of each."""

    names: list[str]  # source names
    tokens: np.ndarray  # (N, SEQ)
    ref: np.ndarray  # (N,) the reference answers the reward checks against
    source: np.ndarray  # (N,) source id
    label: np.ndarray  # (N,) difficulty label (str)

    def groups(self) -> dict[str, np.ndarray]:
        return {n: np.flatnonzero(self.source == i) for i, n in enumerate(self.names)}


def make_problems(task: str, seed: int, noise: float, scale: float) -> Problems:
    """The training problems of `task` (one of `TASKS`) for one seed."""
    pools = make_pools(seed, noise, scale)
    if task == "b2":
        return Problems(
            names=[p.name for p in pools],
            tokens=np.concatenate([p.tokens for p in pools]),
            ref=np.concatenate([p.ref for p in pools]),
            source=np.concatenate([np.full(len(p.ref), i) for i, p in enumerate(pools)]),
            label=np.concatenate([np.full(len(p.ref), LABELS[_B2_KIND[p.name]]) for p in pools]),
        )
    if task not in _MIXES:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    mixes, full_size = _MIXES[task]
    by_name = {p.name: p for p in pools}
    rng = np.random.default_rng([seed, 71])
    perms = {k: rng.permutation(len(by_name[v].ref)) for k, v in _POOL_OF_KIND.items()}
    used = dict.fromkeys(_POOL_OF_KIND, 0)
    size = max(32, int(full_size * scale))
    tok, ref, src, lab = [], [], [], []
    for i, mix in enumerate(mixes.values()):
        counts = {k: int(round(share * size)) for k, share in mix.items()}
        for kind, c in counts.items():
            pool = by_name[_POOL_OF_KIND[kind]]
            take = perms[kind][used[kind] : used[kind] + c]
            if len(take) < c:
                raise ValueError(f"B2's {_POOL_OF_KIND[kind]} pool is too small for task {task}")
            used[kind] += c
            tok.append(pool.tokens[take])
            ref.append(pool.ref[take])
            src.append(np.full(c, i))
            lab.append(np.full(c, LABELS[kind]))
    order = rng.permutation(sum(len(r) for r in ref))
    return Problems(
        names=list(mixes),
        tokens=np.concatenate(tok)[order],
        ref=np.concatenate(ref)[order],
        source=np.concatenate(src)[order],
        label=np.concatenate(lab)[order],
    )
