"""Small numeric helpers: average ranks, Spearman correlation, rank-based quantile buckets."""

from __future__ import annotations

import numpy as np

__all__ = ["average_ranks", "spearman", "quantile_buckets"]


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 0..n-1 with ties sharing their average rank."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=float)
    sx = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sx[j + 1] == sx[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0
        i = j + 1
    return ranks


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman rank correlation (Pearson on average ranks); nan when either side is constant."""
    ra, rb = average_ranks(a), average_ranks(b)
    ra -= ra.mean()
    rb -= rb.mean()
    denom = float(np.sqrt((ra * ra).sum() * (rb * rb).sum()))
    return float((ra * rb).sum() / denom) if denom > 0 else float("nan")


def quantile_buckets(keys: list[tuple], buckets: int) -> np.ndarray:
    """Equal-count buckets 0..buckets-1 by the sort order of `keys` (tuples break ties)."""
    n = len(keys)
    out = np.zeros(n, dtype=np.int32)
    if n == 0 or buckets <= 1:
        return out
    order = sorted(range(n), key=lambda i: keys[i])
    for rank, i in enumerate(order):
        out[i] = min(buckets - 1, rank * buckets // n)
    return out
