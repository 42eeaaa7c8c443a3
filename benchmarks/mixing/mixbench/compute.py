"""Compute accounting for every mixer arm: training, the mixer's extra passes, and proxy runs, in FLOPs.

One place counts what each arm costs, so "total compute to target" means the same for all:
  - training: forward + backward (3 x the forward FLOPs) of every example the step trains on;
  - feedback: every extra pass a mixer needs: held-out forward passes (1 x), held-out gradients
    (3 x), gradient sketches and weight norms (2 FLOPs per coordinate touched); per-source gradients
    taken from per-source micro-batches cost no extra pass (the step's own backward, split);
  - proxy runs: everything a proxy run spent (its training and its feedback), on its own model.
The report divides by the FLOPs of one training step of the target model (one target step), so
uniform's compute to its own final metric equals its step count. The benchmark's own evaluation
(the metric every few steps) is measurement, not training, and is not counted.
"""

from __future__ import annotations

__all__ = ["lm_forward_flops", "mlp_forward_flops", "ComputeMeter"]


def lm_forward_flops(d: int, layers: int, ctx: int, vocab: int = 256) -> float:
    """Forward FLOPs of `ByteLM` on one window of `ctx` tokens: 2 per multiply-add of every weight
    matrix (attention in/out, MLP, output head) per token, plus the attention scores and their
    weighted sum (2 x 2 x ctx x d per token and layer; the causal mask is not exploited on CPU)."""
    per_token = 2 * (layers * 12 * d * d + vocab * d) + 4 * layers * ctx * d
    return float(per_token * ctx)


def mlp_forward_flops(seq: int, emb: int, hidden: int, n_out: int) -> float:
    """Forward FLOPs of B2's policy on one prompt: embedding lookups are free, then three layers."""
    return float(2 * (seq * emb * hidden + hidden * hidden + hidden * n_out))


class ComputeMeter:
    """Counts a run's FLOPs by kind; `fwd` is the forward FLOPs of one example (row)."""

    def __init__(self, fwd: float) -> None:
        self.fwd = float(fwd)
        self.train = 0.0
        self.feedback = 0.0

    def train_rows(self, rows: int) -> None:
        """A training forward + backward over `rows` examples."""
        self.train += 3.0 * self.fwd * rows

    def forward_rows(self, rows: int) -> None:
        """A held-out forward pass over `rows` examples, for the mixer."""
        self.feedback += self.fwd * rows

    def gradient_rows(self, rows: int) -> None:
        """A held-out gradient (forward + backward) over `rows` examples, for the mixer."""
        self.feedback += 3.0 * self.fwd * rows

    def touch(self, coords: int) -> None:
        """A pass over `coords` numbers for the mixer (a sketch projection, a weight norm)."""
        self.feedback += 2.0 * coords

    @property
    def total(self) -> float:
        return self.train + self.feedback
