"""Controlled synthetic feedback streams for mixer tests: one source is favoured by a known signal."""

from __future__ import annotations

import numpy as np

from mixer import Feedback, Mixer


def synthetic_feedback(
    signal: str,
    counts: np.ndarray,
    favoured: int,
    step: int,
    rng: np.random.Generator,
    dim: int = 32,
) -> Feedback:
    """Feedback where `favoured` is best under `signal` (loss high / adv high / gradients aligned / loss falling)."""
    n = len(counts)
    drawn = counts > 0
    noise = 0.05 * rng.standard_normal(n)
    kw: dict = {}
    if signal == "loss":
        kw["loss"] = np.where(
            drawn, 2.0 + noise + np.where(np.arange(n) == favoured, 1.0, 0.0), np.nan
        )
    elif signal == "adv_abs":
        base = np.linspace(0.2, 0.4, n)
        base[favoured] = 0.9
        kw["adv_abs"] = np.where(drawn, base + noise, np.nan)
        kw["reward"] = np.where(drawn, 0.5 + noise, np.nan)
    elif signal == "alignment":
        d = np.ones(dim) / np.sqrt(dim)
        g = rng.standard_normal((n, dim)) * 0.5 / np.sqrt(dim)
        mix = np.full(n, 0.1)
        mix[favoured] = 1.0
        g = g + mix[:, None] * d
        g[~drawn] = np.nan
        kw["grad_sketch"] = g
        kw["loss"] = np.where(drawn, 2.0 + noise, np.nan)
    elif signal == "target":
        # the held-out gradient is d; the favoured source's examples point along it, one hurts
        d = np.ones(dim) / np.sqrt(dim)
        along = np.full(n, 0.1)
        along[favoured] = 1.0
        along[(favoured + 1) % n] = -0.5
        g = rng.standard_normal((n, dim)) * 0.5 / np.sqrt(dim) + along[:, None] * d
        g[~drawn] = np.nan
        kw["grad_sketch"] = g
        kw["target_sketch"] = d + 0.1 * rng.standard_normal(dim) / np.sqrt(dim)
        kw["loss"] = np.where(drawn, 2.0 + noise, np.nan)
    elif signal == "heldout":
        # every source's held-out loss; the favoured one's falls, the others' stay flat, while a
        # memorised source's *training* loss falls fastest of all (it must not be rewarded)
        dev = 2.0 + 0.01 * rng.standard_normal(n)
        dev[favoured] = 3.0 - 0.005 * step + 0.01 * rng.standard_normal()
        kw["dev_loss"] = dev
        train = 2.0 + noise
        train[(favoured + 1) % n] = 3.0 - 0.05 * step
        kw["loss"] = np.where(drawn, train, np.nan)
    elif signal == "progress":
        loss = 2.0 + noise
        loss[favoured] = 3.0 - 0.02 * step + noise[favoured]
        kw["loss"] = np.where(drawn, loss, np.nan)
    else:
        raise ValueError(signal)
    return Feedback(counts=counts, **kw)


def run_stream(
    mixer: Mixer, signal: str, favoured: int, steps: int, batch: int = 64, seed: int = 0
) -> np.ndarray:
    """Drive `mixer` for `steps` steps; returns the weights at every step (steps, n)."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(steps):
        w = mixer.weights()
        out.append(w)
        counts = rng.multinomial(batch, w)
        mixer.update(synthetic_feedback(signal, counts, favoured, t, rng))
    return np.array(out)
