"""Plain PyTorch: a DataLoader driven by a MixedSampler, and per-source losses and gradient sketches.

Credit through loaders: a sampler here yields `DrawnIndex`es (row indices that carry the weights id
of the batch that drew them) and `DrawnRows` puts the row and the id into each example, so however
far a loader prefetches (workers, `prefetch_factor`, accelerate's one-batch look-ahead) the
feedback names the weights that drew the batch it was computed on.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch.utils.data import DataLoader, Sampler

from mixer.feedback import Feedback, WeightsId, weights_id_of
from mixer.log import logger
from mixer.policies.base import Mixer
from mixer.policies.sketch import GradientSketch
from mixer.sampler import BatchSource, DrawnIndex, MixedSampler

__all__ = [
    "MIXER_STATE_FILE",
    "ROW_KEY",
    "WEIGHTS_ID_KEY",
    "DrawnBatch",
    "DrawnRows",
    "MixerRepeatSampler",
    "mixed_dataloader",
    "per_source_loss",
    "per_source_sketches",
    "loss_feedback",
    "FlatIndexSampler",
    "start_run",
    "save_mixer_state",
    "load_mixer_state",
    "drawn_fields",
]

#: The file a trainer adapter writes into each checkpoint folder with the sampler's state.
MIXER_STATE_FILE = "mixer_state.pt"
#: Keys `DrawnRows` adds to a dict example: its row index and the weights id that drew it.
ROW_KEY = "mixer_row"
WEIGHTS_ID_KEY = "mixer_weights_id"


def save_mixer_state(checkpoint: str, state: Mapping[str, Any]) -> None:
    """Write a sampler's state into a checkpoint folder (`MIXER_STATE_FILE`), making the folder."""
    os.makedirs(checkpoint, exist_ok=True)
    torch.save(state, os.path.join(checkpoint, MIXER_STATE_FILE))


def load_mixer_state(checkpoint: str | None) -> Any:
    """The sampler state `save_mixer_state` wrote into a checkpoint folder, or None (no
    checkpoint, or one written without it)."""
    path = os.path.join(checkpoint, MIXER_STATE_FILE) if checkpoint is not None else None
    if path is None or not os.path.isfile(path):
        return None
    return torch.load(path, weights_only=True)


def _takes_eval_loss(learn: Callable) -> bool:
    """Whether a sampler's `learn` accepts `eval_loss=` (by name or through **keywords): the
    adapters give it the trainer's evaluation only then."""
    import inspect

    try:
        params = inspect.signature(learn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is inspect.Parameter.VAR_KEYWORD or p.name == "eval_loss" for p in params)


def _reward_as_loss(r: float, reward_range: tuple[float, float] = (0.0, 1.0)) -> float:
    """A trainer's mean evaluation reward r as the held-out loss the mixer learns from
    (`Feedback.eval_loss`): (high - r) / (high - low) over `reward_range` (0 at the top reward,
    1 at the bottom)."""
    lo, hi = (float(x) for x in reward_range)
    if not hi > lo:
        raise ValueError(f"reward_range must be (low, high) with low < high, got {reward_range}")
    return (hi - float(r)) / (hi - lo)


def _reward_range_of(sampler: Any) -> tuple[float, float]:
    """The sampler's `reward_range`; (0, 1) for a sampler without one."""
    lo, hi = getattr(sampler, "reward_range", (0.0, 1.0))
    return float(lo), float(hi)


def drawn_fields(index: Any) -> dict[str, int | None]:
    """{ROW_KEY: row, WEIGHTS_ID_KEY: id or None} for an index from a mixer's sampler."""
    return {ROW_KEY: int(index), WEIGHTS_ID_KEY: getattr(index, "weights_id", None)}


def start_run(adapter: str, sampler: BatchSource, updates: int | None, origin: str) -> None:
    """At a run's start: tell the mixer how many updates the run makes (`Mixer.set_horizon`; None
    when the trainer cannot know) and log one line saying the mixer is active and how."""
    if updates is not None and updates > 0:
        sampler.mixer.set_horizon(int(updates), origin=origin)
    describe = getattr(sampler, "describe", None)
    line = describe() if callable(describe) else f"{sampler.mixer.name}, {type(sampler).__name__}"
    logger.info("%s: mixing with %s", adapter, line)


class DrawnRows(torch.utils.data.Dataset):
    """A map-style dataset whose examples carry their row and the weights id that drew them.

    Dict examples get `mixer_row` and `mixer_weights_id` keys; any other example becomes the
    pair `(example, {mixer_row, mixer_weights_id})`. Indices without an id (not drawn by a mixer's
    sampler) get `mixer_weights_id=None`. Other attributes are the wrapped dataset's.
    """

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: Any) -> Any:
        row = self.dataset[int(index)]
        tags = drawn_fields(index)
        if isinstance(row, Mapping):
            return {**row, **tags}
        return row, tags

    def __getattr__(self, name: str) -> Any:
        # never the wrapped dataset's dunders: torch's fetcher would call its `__getitems__`
        if name == "dataset" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.dataset, name)


@dataclass
class DrawnBatch:
    """One loader batch of `mixed_dataloader`: the collated examples, their rows and source ids,
    and the `Feedback.weights_id` of the weights that drew them."""

    data: Any
    rows: np.ndarray
    sources: np.ndarray
    weights_id: WeightsId | None


class _DrawnCollate:
    """Collate `(example, tags)` pairs: the examples with `collate_fn`, the tags into a DrawnBatch."""

    def __init__(self, collate_fn: Callable | None, source_of: Callable) -> None:
        self.collate_fn = collate_fn or torch.utils.data.default_collate
        self.source_of = source_of

    def __call__(self, items: list[tuple[Any, dict]]) -> DrawnBatch:
        rows = np.array([t[ROW_KEY] for _, t in items], dtype=np.int64)
        return DrawnBatch(
            data=self.collate_fn([x for x, _ in items]),
            rows=rows,
            sources=self.source_of(rows),
            weights_id=weights_id_of(t[WEIGHTS_ID_KEY] for _, t in items),
        )


class _DrawnBatches:
    """A batch sampler over a `BatchSource`: each batch as `DrawnIndex`es (the draw's weights id)."""

    def __init__(self, sampler: MixedSampler) -> None:
        self.mixed_sampler = sampler

    def __iter__(self) -> Iterator[list[DrawnIndex]]:
        for idx in self.mixed_sampler:
            yield [DrawnIndex(i, self.mixed_sampler.last_weights_id) for i in idx]

    def __len__(self) -> int:
        return len(self.mixed_sampler)


class MixerRepeatSampler(Sampler[int]):
    """TRL's RepeatSampler layout over prompts chosen by a `BatchSource` (one mixer step per chunk).

    Chunks are drawn lazily, when the loader asks for them, so a loader that prefetches draws with
    weights an update or more old; each index is a `DrawnIndex` carrying its chunk's weights id, so
    with `DrawnRows` the feedback still names the weights that drew it. For an exact resume,
    `state_dict(consumed)` also saves the chunks already drawn but not yet trained on (with their
    weights ids); after loading they are replayed first.
    """

    def __init__(
        self,
        sampler: BatchSource,
        mini_repeat_count: int,
        repeat_count: int = 1,
        num_batches: int | None = None,
    ) -> None:
        self.mixed_sampler = sampler
        self.mini_repeat_count = int(mini_repeat_count)
        self.repeat_count = int(repeat_count)
        if num_batches is None:
            if not isinstance(sampler, Sized):
                raise ValueError("pass num_batches: the sampler has no length")
            num_batches = max(1, len(sampler))
        self.num_batches = int(num_batches)
        self.drawn = 0
        self.recent: list[list[DrawnIndex]] = []
        self.pending: list[list[DrawnIndex]] = []

    @property
    def sampler(self) -> BatchSource:
        """Read-only alias of `mixed_sampler` (the adapters' one name for the sampler they drive)."""
        return self.mixed_sampler

    def _next_chunk(self) -> list[DrawnIndex]:
        if self.pending:
            chunk = self.pending.pop(0)
        else:
            idx = self.mixed_sampler.next_batch()
            chunk = [DrawnIndex(i, self.mixed_sampler.last_weights_id) for i in idx]
        self.drawn += 1
        self.recent = (self.recent + [chunk])[-64:]
        return chunk

    def __iter__(self) -> Iterator[DrawnIndex]:
        for _ in range(self.num_batches):
            chunk = self._next_chunk()
            for _ in range(self.repeat_count):
                for index in chunk:
                    for _ in range(self.mini_repeat_count):
                        yield index

    def __len__(self) -> int:
        return (
            self.num_batches
            * self.mixed_sampler.batch_size
            * self.mini_repeat_count
            * self.repeat_count
        )

    def state_dict(self, consumed: int | None = None) -> dict:
        """Sampler and mixer state, plus the chunks drawn after the first `consumed` ones (prefetched)."""
        ahead = 0 if consumed is None else max(0, self.drawn - int(consumed))
        if ahead > len(self.recent):
            raise RuntimeError(f"{ahead} chunks in flight, more than the {len(self.recent)} kept")
        pending = self.recent[len(self.recent) - ahead :] if ahead else []
        return {
            "sampler": self.mixed_sampler.state_dict(),
            "pending": [[int(i) for i in c] for c in [*pending, *self.pending]],
            "pending_ids": [c[0].weights_id if c else None for c in [*pending, *self.pending]],
            "drawn": self.drawn - ahead,
        }

    def load_state_dict(self, state: dict) -> None:
        self.mixed_sampler.load_state_dict(state["sampler"])
        ids = state.get("pending_ids") or [None] * len(state["pending"])
        self.pending = [
            [DrawnIndex(i, wid) for i in c] for c, wid in zip(state["pending"], ids, strict=True)
        ]
        self.drawn = int(state["drawn"])
        self.recent = []


def FlatIndexSampler(sampler: BatchSource) -> MixerRepeatSampler:  # noqa: N802
    """A MixedSampler's batches as one index stream, for loaders that take `sampler=` and a batch size."""
    return MixerRepeatSampler(sampler, mini_repeat_count=1, repeat_count=1)


def mixed_dataloader(
    datasets: Mapping[str, Any],
    batch_size: int,
    mixer: Mixer | None = None,
    seed: int = 0,
    num_steps: int | None = None,
    collate_fn: Callable | None = None,
    **loader_kwargs: Any,
) -> tuple[DataLoader, MixedSampler]:
    """A DataLoader whose batches follow `mixer`'s weights, and its sampler (for its state).

    Each batch is a `DrawnBatch`: `.data` (collated with `collate_fn`), `.sources` and
    `.weights_id`, which name the sources and the weights that drew it even when the loader runs
    ahead (`num_workers`, `prefetch_factor` in `loader_kwargs`). With `num_workers=0` (the default)
    each batch is drawn with the latest weights; with workers the weights lag by up to
    `num_workers * prefetch_factor` updates, and the credit stays right.
    """
    sampler = MixedSampler.from_datasets(
        datasets, batch_size, mixer=mixer, seed=seed, num_steps=num_steps
    )
    loader = DataLoader(
        DrawnRows(sampler.dataset),
        batch_sampler=_DrawnBatches(sampler),
        collate_fn=_DrawnCollate(collate_fn, sampler.source_of),
        **loader_kwargs,
    )
    start_run("mixed_dataloader", sampler, num_steps, origin="num_steps")
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
    weights_id: WeightsId | None = None,
) -> Feedback:
    """Feedback for language-model style training: counts and mean loss per source, plus whatever
    held-out signal the trainer measured (see `Feedback`); `weights_id` names the weights that
    drew the batch (`DrawnBatch.weights_id`)."""
    s = np.asarray(source_ids, dtype=np.int64)
    return Feedback(
        counts=np.bincount(s, minlength=n_sources),
        loss=per_source_loss(per_sample, s, n_sources),
        grad_sketch=grad_sketch,
        eval_loss=eval_loss,
        dev_loss=None if dev_loss is None else np.asarray(dev_loss, dtype=np.float64),
        target_sketch=target_sketch,
        weights_id=weights_id,
    )
