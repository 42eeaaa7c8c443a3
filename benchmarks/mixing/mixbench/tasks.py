"""B2 task sources: four operands in 0..15, a one-token answer in 0..15 checked exactly against a reference.

Sources differ the way real ones do: `easy` (copy an operand), `medium` ((a + b mod 4) mod 16), `medium2`
(max of four), `hard` ((ab+cd) mod 16, too hard to learn yet), `noisy` (medium problems whose
stored reference is a random wrong answer for a share of them; the reward uses that reference),
and `repeated` (eight medium problems, drawn again and again).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "SOURCES",
    "CLEAN",
    "TaskPool",
    "make_pools",
    "make_eval",
    "make_dev",
    "make_dev_slices",
    "answer",
    "N_ANS",
    "SEQ",
    "VOCAB",
]

N_ANS = 16
SEQ = 5  # task token + four operands
KINDS = ("copy", "add", "max", "muladd")
VOCAB = 16 + len(KINDS)
SOURCES = ("easy", "medium", "medium2", "hard", "noisy", "repeated")
CLEAN = ("easy", "medium", "medium2", "hard")
_KIND = {
    "easy": "copy",
    "medium": "add",
    "medium2": "max",
    "hard": "muladd",
    "noisy": "add",
    "repeated": "add",
}
_SIZE = {"easy": 6000, "medium": 3000, "medium2": 3000, "hard": 3000, "noisy": 5000, "repeated": 8}


def answer(kind: str, x: np.ndarray) -> np.ndarray:
    """The true answer for each row of operands x (N, 4)."""
    a, b, c, d = x.T
    if kind == "copy":
        return a.copy()
    if kind == "add":
        return (a + b % 4) % 16
    if kind == "max":
        return x.max(1)
    if kind == "muladd":
        return (a * b + c * d) % 16
    raise ValueError(kind)


def _encode(kind: str, x: np.ndarray) -> np.ndarray:
    tok = np.full((len(x), 1), 16 + KINDS.index(kind))
    return np.concatenate([tok, x], axis=1).astype(np.int64)


class TaskPool:
    """A source's problems: token sequences (N, SEQ), stored reference answers, and true answers."""

    def __init__(self, name: str, tokens: np.ndarray, ref: np.ndarray, truth: np.ndarray) -> None:
        self.name, self.tokens, self.ref, self.truth = name, tokens, ref, truth


def make_pools(seed: int, noise: float = 0.5, scale: float = 1.0) -> list[TaskPool]:
    """The training sources (sizes differ like real sources; `scale` shrinks them for quick runs)."""
    rng = np.random.default_rng([seed, 7])
    pools = []
    for name in SOURCES:
        kind = _KIND[name]
        size = _SIZE[name] if name == "repeated" else max(32, int(_SIZE[name] * scale))
        x = rng.integers(0, 16, (size, 4))
        truth = answer(kind, x)
        ref = truth.copy()
        if name == "noisy":
            bad = rng.random(size) < noise
            ref[bad] = (truth[bad] + rng.integers(1, 16, int(bad.sum()))) % 16
        pools.append(TaskPool(name, _encode(kind, x), ref, truth))
    return pools


def make_eval(seed: int, per_source: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Held-out clean problems per clean source: (tokens, true answers), from their own generator."""
    rng = np.random.default_rng([seed, 99])
    out = {}
    for name in CLEAN:
        x = rng.integers(0, 16, (per_source, 4))
        out[name] = (_encode(_KIND[name], x), answer(_KIND[name], x))
    return out


def make_dev(seed: int, per_source: int) -> tuple[np.ndarray, np.ndarray]:
    """A development set, apart from the training pools and the evaluation set: clean problems of
    every clean source with their true (verified) answers, for a mixer's held-out target gradient."""
    rng = np.random.default_rng([seed, 55])
    toks, ys = [], []
    for name in CLEAN:
        x = rng.integers(0, 16, (per_source, 4))
        toks.append(_encode(_KIND[name], x))
        ys.append(answer(_KIND[name], x))
    return np.concatenate(toks), np.concatenate(ys)


def make_dev_slices(
    seed: int, per_source: int, noise: float, pools: list[TaskPool]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per training source, a fixed held-out slice (tokens, stored references) drawn the way that
    source is: noisy keeps its wrong references, repeated is its own eight problems (there is
    nothing else to hold out)."""
    rng = np.random.default_rng([seed, 57])
    out = []
    for pool in pools:
        if pool.name == "repeated":
            out.append((pool.tokens, pool.ref))
            continue
        kind = _KIND[pool.name]
        x = rng.integers(0, 16, (per_source, 4))
        truth = answer(kind, x)
        ref = truth.copy()
        if pool.name == "noisy":
            bad = rng.random(per_source) < noise
            ref[bad] = (truth[bad] + rng.integers(1, 16, int(bad.sum()))) % 16
        out.append((_encode(kind, x), ref))
    return out


def warmup_batch(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Supervised warm-up problems of every clean kind (true answers), fresh each call."""
    kinds = rng.integers(0, len(KINDS), size)
    x = rng.integers(0, 16, (size, 4))
    tok = np.empty((size, SEQ), dtype=np.int64)
    y = np.empty(size, dtype=np.int64)
    for k, kind in enumerate(KINDS):
        m = kinds == k
        tok[m] = _encode(kind, x[m])
        y[m] = answer(kind, x[m])
    return tok, y
