"""GradientSketch: a fixed random projection of (per-source) gradients, with memory independent of model size."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

__all__ = ["GradientSketch", "alignment_scores", "target_scores"]


class GradientSketch:
    """Count-sketch projection of a flat gradient of any size d to `dim` numbers.

    Coordinate j goes to bucket h(j) with sign s(j); h and s are drawn chunk by chunk from a
    generator seeded by (seed, chunk index), so every call (and every rank) uses the same
    projection. The hashes of the first `cache_coords` coordinates (default 8 M, 64 MB) are kept
    between calls; beyond that they are regenerated per call, so memory stays bounded for any d.
    Inner products are preserved in expectation, so cosines between sketches estimate cosines
    between the full gradients.
    """

    def __init__(
        self, dim: int = 256, seed: int = 0, chunk: int = 1 << 16, cache_coords: int = 1 << 23
    ) -> None:
        if dim < 1:
            raise ValueError(f"sketch dim must be >= 1, got {dim}")
        self.dim, self.seed, self.chunk = int(dim), int(seed), int(chunk)
        self.cache_coords = int(cache_coords)
        self._tables: dict[tuple[int, str], torch.Tensor] = {}

    def _slots(self, c: int, device: torch.device) -> torch.Tensor:
        """Chunk c's target slot per coordinate: bucket h(j), plus `dim` where the sign s(j) is -1.

        Kept while the cached coordinates stay within `cache_coords` (8 bytes each), else
        regenerated per call; both give the same hash.
        """
        import torch

        key = (c, str(device))
        slots = self._tables.get(key)
        if slots is not None:
            return slots
        g = torch.Generator(device="cpu").manual_seed(self.seed * 1_000_003 + c)
        bucket = torch.randint(0, self.dim, (self.chunk,), generator=g)
        negative = torch.randint(0, 2, (self.chunk,), generator=g) == 0
        slots = (bucket + self.dim * negative).to(device)
        if (len(self._tables) + 1) * self.chunk <= self.cache_coords:
            self._tables[key] = slots
        return slots

    def project(self, grad: torch.Tensor | np.ndarray | Iterable[torch.Tensor]) -> np.ndarray:
        """Sketch one flat gradient (a tensor, an array, or an iterable of tensors in a fixed order)."""
        import torch

        if isinstance(grad, np.ndarray):
            parts: Iterable[torch.Tensor] = [
                torch.from_numpy(np.ascontiguousarray(grad, dtype=np.float32))
            ]
        elif isinstance(grad, torch.Tensor):
            parts = [grad]
        else:
            parts = grad
        acc: torch.Tensor | None = None
        offset = 0
        for part in parts:
            flat = part.detach().reshape(-1).to(torch.float32)
            if acc is None:
                acc = torch.zeros(2 * self.dim, dtype=torch.float32, device=flat.device)
            i = 0
            while i < flat.numel():
                c, start = divmod(offset + i, self.chunk)
                take = min(self.chunk - start, flat.numel() - i)
                slots = self._slots(c, flat.device)
                acc.index_add_(0, slots[start : start + take], flat[i : i + take])
                i += take
            offset += flat.numel()
        if acc is None:
            return np.zeros(self.dim)
        return (acc[: self.dim] - acc[self.dim :]).cpu().numpy().astype(np.float64)

    def project_grads(self, params: Iterable[torch.nn.Parameter]) -> np.ndarray:
        """Sketch the current `.grad` of `params` (parameters without a gradient count as zeros)."""
        import torch

        plist = list(params)
        return self.project(p.grad if p.grad is not None else torch.zeros_like(p) for p in plist)

    def memory_bytes(self) -> int:
        """Memory held: the cached hash chunks (8 bytes a coordinate, at most `cache_coords`),
        or one chunk when nothing is cached, plus the accumulator."""
        cached = len(self._tables) * self.chunk
        return max(cached, self.chunk) * 8 + self.dim * 8


def alignment_scores(sketch: np.ndarray) -> np.ndarray:
    """Per source: cosine between its (sketched) gradient and the sum of the other sources'. NaN rows stay NaN."""
    g = np.asarray(sketch, dtype=np.float64)
    ok = np.asarray(np.isfinite(g).all(axis=1))
    out = np.full(g.shape[0], np.nan)
    if ok.sum() < 2:
        return out
    gz = np.where(ok[:, None], g, 0.0)
    others = gz.sum(axis=0, keepdims=True) - gz
    num = (gz * others).sum(axis=1)
    den = np.linalg.norm(gz, axis=1) * np.linalg.norm(others, axis=1) + 1e-12
    out[ok] = num[ok] / den[ok]
    return out


def target_scores(sketch: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per source: how far one average example of it moves the model along the target gradient.

    `sketch` rows are the gradients of each source's mean loss in the step (as
    `mixer.adapters.torch.per_source_sketches` gives them), `target` the gradient of the held-out
    objective, sketched alike. Returns (projection, cosine): projection_i = <g_i, t> / |t|, the
    first-order drop of the held-out loss per unit step on source i, and the cosine of g_i and t.
    Rows that are not finite (sources not drawn) give NaN.
    """
    g = np.asarray(sketch, dtype=np.float64)
    t = np.asarray(target, dtype=np.float64).reshape(-1)
    proj = np.full(g.shape[0], np.nan)
    cos = np.full(g.shape[0], np.nan)
    tn = float(np.linalg.norm(t))
    ok = np.asarray(np.isfinite(g).all(axis=1))
    if tn <= 0 or not ok.any():
        return proj, cos
    gz = np.where(ok[:, None], g, 0.0)
    dots = gz @ t / tn
    proj[ok] = dots[ok]
    cos[ok] = dots[ok] / (np.linalg.norm(gz, axis=1)[ok] + 1e-12)
    return proj, cos
