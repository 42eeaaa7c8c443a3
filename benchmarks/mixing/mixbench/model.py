"""A tiny causal transformer over bytes (vocabulary 256), pre-norm, learned positions."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["ByteLM"]


class _Block(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = (
            self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        )
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class ByteLM(nn.Module):
    """Byte-level causal LM; `row_losses(x)` gives each row's mean next-byte cross-entropy (nats)."""

    def __init__(self, d: int = 128, layers: int = 4, heads: int = 4, ctx: int = 128) -> None:
        super().__init__()
        self.emb = nn.Embedding(256, d)
        self.pos = nn.Parameter(torch.zeros(ctx, d))
        nn.init.normal_(self.pos, std=0.02)
        self.blocks = nn.ModuleList(_Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, 256, bias=False)
        self.head.weight = self.emb.weight
        for m in self.modules():
            if isinstance(m, nn.Linear | nn.Embedding):
                nn.init.normal_(m.weight, std=0.02)
                if getattr(m, "bias", None) is not None:
                    nn.init.zeros_(m.bias)

    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.emb(idx) + self.pos[: idx.shape[1]]
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))

    def row_losses(self, chunk: torch.Tensor) -> torch.Tensor:
        """Mean cross-entropy per row of a (B, T+1) byte chunk (predict bytes 1..T from 0..T-1)."""
        logits = self(chunk[:, :-1])
        ce = F.cross_entropy(logits.reshape(-1, 256), chunk[:, 1:].reshape(-1), reduction="none")
        return ce.view(chunk.shape[0], -1).mean(1)
