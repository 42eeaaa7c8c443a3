"""MinHash signatures and LSH banding, vectorised over whole batches.

Signatures use one-permutation hashing: every shingle is hashed once and lands in one of
`num_perm` bins, keeping the minimum per bin; an empty bin borrows the value of the first
non-empty bin along its own fixed random probe sequence (optimal densification). Cost is
O(shingles), not O(shingles x num_perm), and two texts agree in a bin with probability close
to their Jaccard similarity, like classic MinHash.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from filters.stages.dedup.shingles import DEFAULT_K, mix64, shingle_hashes

__all__ = [
    "EMPTY",
    "signatures_from_shingles",
    "minhash_signatures",
    "estimate_jaccard",
    "lsh_params",
    "band_hashes",
    "jaccard",
]

EMPTY = np.uint32(0xFFFFFFFF)
_ROT = np.uint32(0x9E3779B1)


def signatures_from_shingles(
    shingles: np.ndarray, offsets: np.ndarray, num_perm: int = 128, seed: int = 1
) -> np.ndarray:
    """`(n, num_perm)` uint32 signatures of the texts owning `shingles[offsets[i]:offsets[i+1]]`.

    A text without shingles gets a row of `EMPTY`.
    """
    n = len(offsets) - 1
    sig = np.full((n, num_perm), EMPTY, dtype=np.uint32)
    if len(shingles) == 0:
        return sig
    h = mix64(shingles ^ np.uint64((seed * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF))
    counts = np.diff(offsets)
    doc = np.repeat(np.arange(n, dtype=np.int64), counts)
    if num_perm & (num_perm - 1) == 0:
        bins = (h & np.uint64(num_perm - 1)).astype(np.int64)
    else:
        bins = (h % np.uint64(num_perm)).astype(np.int64)
    vals = (h >> np.uint64(32)).astype(np.uint32)
    np.minimum.at(sig.reshape(-1), doc * num_perm + bins, np.minimum(vals, EMPTY - np.uint32(1)))
    _densify(sig, counts > 0)
    return sig


_PROBES = 8


def _probe_table(p: int) -> np.ndarray:
    """(attempts, p): for empty bin j, the bins to borrow from, in order; same for every text."""
    j = np.arange(p, dtype=np.uint64)[None, :]
    t = np.arange(1, _PROBES + 1, dtype=np.uint64)[:, None]
    with np.errstate(over="ignore"):
        return (mix64(j * np.uint64(0x9E3779B97F4A7C15) + t) % np.uint64(p)).astype(np.intp)


def _densify(sig: np.ndarray, has_any: np.ndarray) -> None:
    """Fill empty bins: each borrows the value of the first non-empty bin along its own fixed
    random probe sequence (optimal densification), so texts with few shingles stay accurate;
    bins still empty after `_PROBES` tries take the previous non-empty bin's value."""
    empty = sig == EMPTY
    rows = np.flatnonzero(empty.any(axis=1) & has_any)
    if len(rows) == 0:
        return
    p = sig.shape[1]
    orig = np.ascontiguousarray(sig[rows].T)  # (p, m): whole-row gathers below
    out = orig.copy()
    todo = orig == EMPTY
    for src in _probe_table(p):
        cand = orig[src]
        ok = todo & (cand != EMPTY)
        np.copyto(out, cand, where=ok)
        todo &= ~ok
        if not todo.any():
            break
    out = np.ascontiguousarray(out.T)
    todo = np.ascontiguousarray(todo.T)
    live = np.flatnonzero(todo.any(axis=1))
    if len(live):
        _rotate_fill(out, live, todo)
    sig[rows] = out


def _rotate_fill(sig: np.ndarray, rows: np.ndarray, todo: np.ndarray) -> None:
    """Fill `todo` bins of `rows` from the previous non-empty bin (circularly), offset by the
    distance (rotation densification)."""
    p = sig.shape[1]
    sub_t = np.ascontiguousarray(sig[rows].T)
    e_t = np.ascontiguousarray(todo[rows].T)
    ar = np.arange(p, dtype=np.int64)[:, None]
    low = np.int64(-4 * p)
    both = np.concatenate([np.where(e_t, low, ar - p), np.where(e_t, low, ar)], axis=0)
    np.maximum.accumulate(both, axis=0, out=both)
    prev = both[p:]
    src = np.where(prev < 0, prev + p, prev)
    dist = (ar - prev).astype(np.uint32)
    with np.errstate(over="ignore"):
        filled = np.take_along_axis(sub_t, src, axis=0) + dist * _ROT
    np.minimum(filled, EMPTY - np.uint32(1), out=filled)
    sig[rows] = np.where(e_t, filled, sub_t).T


def minhash_signatures(
    texts: Sequence[str | None] | pa.Array, num_perm: int = 128, k: int = DEFAULT_K, seed: int = 1
) -> np.ndarray:
    """MinHash signatures (`(len(texts), num_perm)` uint32) of code-aware `k`-token shingles."""
    sh, off = shingle_hashes(texts, k)
    return signatures_from_shingles(sh, off, num_perm, seed)


def estimate_jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Fraction of agreeing bins between two signatures: an estimate of their Jaccard."""
    return float(np.mean(a == b))


def lsh_params(threshold: float, num_perm: int, min_recall: float = 0.97) -> tuple[int, int]:
    """(bands, rows), bands * rows <= num_perm: a pair exactly at `threshold` becomes a candidate
    with probability >= `min_recall`, and as few pairs below it as possible do."""
    xs = np.linspace(0.0, threshold, 201)
    best: tuple[float, int, int] | None = None
    for r in range(1, num_perm + 1):
        b = num_perm // r
        if 1.0 - (1.0 - threshold**r) ** b < min_recall:
            continue
        fp = float(np.trapezoid(1.0 - (1.0 - xs**r) ** b, xs))
        if best is None or fp < best[0]:
            best = (fp, b, r)
    if best is None:
        return num_perm, 1
    return best[1], best[2]


def band_hashes(sig: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """`(n, bands)` uint64: one hash per band of `rows` signature values."""
    n = sig.shape[0]
    x = sig[:, : bands * rows].reshape(n, bands, rows).astype(np.uint64)
    acc = np.zeros((n, bands), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for r in range(rows):
            acc = mix64(acc ^ x[:, :, r])
    return acc


def jaccard(a: np.ndarray | set | frozenset, b: np.ndarray | set | frozenset) -> float:
    """Exact Jaccard similarity of two shingle sets (sets, or sorted unique arrays)."""
    if isinstance(a, (set, frozenset)) or isinstance(b, (set, frozenset)):
        sa, sb = set(a), set(b)
        union = len(sa | sb)
        return len(sa & sb) / union if union else 0.0
    if len(a) == 0 and len(b) == 0:
        return 0.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)
