"""Plain PyTorch: a DataLoader driven by a MixedSampler, and per-source losses and gradient sketches."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch.utils.data import DataLoader, Sampler

from mixer.base import Mixer
from mixer.feedback import Feedback
from mixer.sampler import MixedSampler
from mixer.sketch import GradientSketch

__all__ = [
    "MixerRepeatSampler",
    "mixed_dataloader",
    "per_source_loss",
    "per_source_sketches",
    "loss_feedback",
    "FlatIndexSampler",
]


class MixerRepeatSampler(Sampler[int]):
    """TRL's RepeatSampler layout over prompts chosen by a `MixedSampler` (one mixer step per chunk).

    Chunks are drawn lazily, when the loader asks for them, so a loader that prefetches one batch
    draws with weights one update old. For an exact resume, `state_dict(consumed)` also saves the
    chunks already drawn but not yet trained on; after loading they are replayed first.
    """

    def __init__(
        self,
        sampler: MixedSampler,
        mini_repeat_count: int,
        repeat_count: int = 1,
        num_batches: int | None = None,
    ) -> None:
        self.sampler = sampler
        self.mini_repeat_count = int(mini_repeat_count)
        self.repeat_count = int(repeat_count)
        total = sum(len(g) for g in sampler.groups)
        self.num_batches = (
            int(num_batches) if num_batches is not None else max(1, total // sampler.batch_size)
        )
        self.drawn = 0
        self.recent: list[list[int]] = []
        self.pending: list[list[int]] = []

    def _next_chunk(self) -> list[int]:
        chunk = self.pending.pop(0) if self.pending else self.sampler.next_batch()
        self.drawn += 1
        self.recent = (self.recent + [chunk])[-16:]
        return chunk

    def __iter__(self) -> Iterator[int]:
        for _ in range(self.num_batches):
            chunk = self._next_chunk()
            for _ in range(self.repeat_count):
                for index in chunk:
                    for _ in range(self.mini_repeat_count):
                        yield index

    def __len__(self) -> int:
        return (
            self.num_batches * self.sampler.batch_size * self.mini_repeat_count * self.repeat_count
        )

    def state_dict(self, consumed: int | None = None) -> dict:
        """Sampler and mixer state, plus the chunks drawn after the first `consumed` ones (prefetched)."""
        ahead = 0 if consumed is None else max(0, self.drawn - int(consumed))
        pending = self.recent[len(self.recent) - ahead :] if ahead else []
        return {
            "sampler": self.sampler.state_dict(),
            "pending": [list(c) for c in [*pending, *self.pending]],
            "drawn": self.drawn - ahead,
        }

    def load_state_dict(self, state: dict) -> None:
        self.sampler.load_state_dict(state["sampler"])
        self.pending = [list(c) for c in state["pending"]]
        self.drawn = int(state["drawn"])
        self.recent = []


def FlatIndexSampler(sampler: MixedSampler) -> MixerRepeatSampler:  # noqa: N802
    """A MixedSampler's batches as one index stream, for loaders that take `sampler=` and a batch size."""
    return MixerRepeatSampler(sampler, mini_repeat_count=1, repeat_count=1)


def mixed_dataloader(
    datasets: Mapping[str, Any],
    batch_size: int,
    mixer: Mixer | None = None,
    seed: int = 0,
    num_steps: int | None = None,
    collate_fn: Callable | None = None,
) -> tuple[DataLoader, MixedSampler]:
    """A DataLoader whose batches follow `mixer`'s weights, and its sampler (for `last_sources`, state).

    Uses `num_workers=0` so that each batch is drawn with the latest weights.
    """
    sampler = MixedSampler.from_datasets(
        datasets, batch_size, mixer=mixer, seed=seed, num_steps=num_steps
    )
    loader = DataLoader(
        sampler.dataset, batch_sampler=sampler, num_workers=0, collate_fn=collate_fn
    )
    return loader, sampler


def per_source_loss(
    per_sample: torch.Tensor, source_ids: Sequence[int] | np.ndarray, n_sources: int
) -> np.ndarray:
    """Mean loss per source (NaN for sources absent from the batch)."""
    v = per_sample.detach().float().cpu().numpy().reshape(-1)
    s = np.asarray(source_ids, dtype=np.int64)
    cnt = np.bincount(s, minlength=n_sources).astype(np.float64)
    tot = np.bincount(s, weights=v, minlength=n_sources)
    out = np.full(n_sources, np.nan)
    np.divide(tot, cnt, out=out, where=cnt > 0)
    return out


def per_source_sketches(
    per_sample: torch.Tensor,
    source_ids: Sequence[int] | np.ndarray,
    n_sources: int,
    params: Iterable[torch.nn.Parameter],
    sketch: GradientSketch,
) -> np.ndarray:
    """(n_sources, sketch.dim): the sketched gradient of each source's mean loss (NaN rows if absent).

    One `autograd.grad` per present source (the graph is retained); pass a subset of parameters
    (e.g. the last layers) to keep it cheap.
    """
    plist = [p for p in params if p.requires_grad]
    s = torch.as_tensor(np.asarray(source_ids, dtype=np.int64), device=per_sample.device)
    out = np.full((n_sources, sketch.dim), np.nan)
    for i in range(n_sources):
        mask = s == i
        if not bool(mask.any()):
            continue
        loss_i = per_sample[mask].mean()
        grads = torch.autograd.grad(loss_i, plist, retain_graph=True, allow_unused=True)
        out[i] = sketch.project(
            g if g is not None else torch.zeros_like(p) for g, p in zip(grads, plist, strict=True)
        )
    return out


def loss_feedback(
    per_sample: torch.Tensor,
    source_ids: Sequence[int] | np.ndarray,
    n_sources: int,
    grad_sketch: np.ndarray | None = None,
    eval_loss: float | None = None,
    dev_loss: Sequence[float] | np.ndarray | None = None,
    target_sketch: np.ndarray | None = None,
) -> Feedback:
    """Feedback for language-model style training: counts and mean loss per source, plus whatever
    held-out signal the trainer measured (see `Feedback`)."""
    s = np.asarray(source_ids, dtype=np.int64)
    return Feedback(
        counts=np.bincount(s, minlength=n_sources),
        loss=per_source_loss(per_sample, s, n_sources),
        grad_sketch=grad_sketch,
        eval_loss=eval_loss,
        dev_loss=dev_loss,
        target_sketch=target_sketch,
    )
