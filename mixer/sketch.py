"""GradientSketch: a fixed random projection of (per-source) gradients, with memory independent of model size."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

__all__ = ["GradientSketch", "alignment_scores"]


class GradientSketch:
    """Count-sketch projection of a flat gradient of any size d to `dim` numbers.

    Coordinate j goes to bucket h(j) with sign s(j); h and s are drawn chunk by chunk from a
    generator seeded by (seed, chunk index), so nothing of size d is ever stored and every call
    (and every rank) uses the same projection. Inner products are preserved in expectation, so
    cosines between sketches estimate cosines between the full gradients.
    """

    def __init__(self, dim: int = 256, seed: int = 0, chunk: int = 1 << 16) -> None:
        if dim < 1:
            raise ValueError(f"sketch dim must be >= 1, got {dim}")
        self.dim, self.seed, self.chunk = int(dim), int(seed), int(chunk)
        self._cache: tuple[int, torch.device, torch.Tensor, torch.Tensor] | None = None

    def _hash(self, c: int, size: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        import torch

        if self._cache is not None and self._cache[0] == c and self._cache[1] == device:
            return self._cache[2], self._cache[3]
        g = torch.Generator(device="cpu").manual_seed(self.seed * 1_000_003 + c)
        bucket = torch.randint(0, self.dim, (size,), generator=g).to(device)
        sign = (torch.randint(0, 2, (size,), generator=g).to(torch.float32) * 2 - 1).to(device)
        self._cache = (c, device, bucket, sign)
        return bucket, sign

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
        out: torch.Tensor | None = None
        offset = 0
        for part in parts:
            flat = part.detach().reshape(-1).to(torch.float32)
            if out is None:
                out = torch.zeros(self.dim, dtype=torch.float32, device=flat.device)
            i = 0
            while i < flat.numel():
                c, start = divmod(offset + i, self.chunk)
                take = min(self.chunk - start, flat.numel() - i)
                bucket, sign = self._hash(c, self.chunk, flat.device)
                out.index_add_(
                    0, bucket[start : start + take], flat[i : i + take] * sign[start : start + take]
                )
                i += take
            offset += flat.numel()
        if out is None:
            return np.zeros(self.dim)
        return out.cpu().numpy().astype(np.float64)

    def project_grads(self, params: Iterable[torch.nn.Parameter]) -> np.ndarray:
        """Sketch the current `.grad` of `params` (parameters without a gradient count as zeros)."""
        import torch

        plist = list(params)
        return self.project(p.grad if p.grad is not None else torch.zeros_like(p) for p in plist)

    def memory_bytes(self) -> int:
        """Working memory of one projection call: one chunk of hashes plus the output."""
        return self.chunk * 12 + self.dim * 4


def alignment_scores(sketch: np.ndarray) -> np.ndarray:
    """Per source: cosine between its (sketched) gradient and the sum of the other sources'. NaN rows stay NaN."""
    g = np.asarray(sketch, dtype=np.float64)
    ok = np.isfinite(g).all(axis=1)
    out = np.full(g.shape[0], np.nan)
    if ok.sum() < 2:
        return out
    gz = np.where(ok[:, None], g, 0.0)
    others = gz.sum(axis=0, keepdims=True) - gz
    num = (gz * others).sum(axis=1)
    den = np.linalg.norm(gz, axis=1) * np.linalg.norm(others, axis=1) + 1e-12
    out[ok] = num[ok] / den[ok]
    return out
