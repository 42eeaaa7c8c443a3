"""verl: a curriculum sampler driven by a mixer, fed from the training batch after every step.

verl 0.7.x: set `data.sampler.class_path=pkg://mixer.adapters.verl` (or the file path) and
`data.sampler.class_name=MixerCurriculumSampler`, and `data.dataloader_num_workers=0`; the trainer
builds it with `(data_source, data_config)` and calls `update(batch)` after every step.
verl 0.8+ (no `verl.experimental.dataset`): pass `MixerCurriculumSampler(dataset, config.data)` as
`train_sampler=` to `RayPPOTrainer` and build the trainer from `mixer_trainer_class(RayPPOTrainer)`,
whose `_update_actor` feeds the sampler the batch (it then carries scores and advantages).
Options are read from `data.sampler`: `mixer` (policy name, default "acodm"), `mixer_kwargs`,
`source_key` (default "data_source"), `pass_threshold` (default 1.0).
The sampler is `Stateful` (state_dict / load_state_dict), so verl's StatefulDataLoader checkpoint
holds the mixer and the sampler position, and a resumed run draws the same batches.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sized
from typing import Any

import numpy as np
from torch.utils.data import Sampler

from mixer.base import Mixer
from mixer.factory import make_mixer
from mixer.feedback import Feedback, feedback_from_rewards
from mixer.sampler import MixedSampler

try:  # verl <= 0.7.x
    from verl.experimental.dataset.sampler import AbstractCurriculumSampler as _Base

    HAS_CURRICULUM_API = True
except ImportError:  # verl missing, or 0.8+ where the module is gone
    _Base = Sampler  # type: ignore[assignment,misc]
    HAS_CURRICULUM_API = False

__all__ = [
    "MixerCurriculumSampler",
    "feedback_from_batch",
    "dataset_labels",
    "mixer_trainer_class",
    "HAS_CURRICULUM_API",
]


def _get(cfg: Any, key: str, default: Any = None) -> Any:
    if cfg is None:
        return default
    if isinstance(cfg, Mapping):
        return cfg.get(key, default)
    getter = getattr(cfg, "get", None)
    return getter(key, default) if getter is not None else getattr(cfg, key, default)


def dataset_labels(data_source: Sized, key: str) -> list[str]:
    """The `key` value of every example, read from the dataset's table when it has one (verl's
    RLHFDataset keeps a `dataframe`), else item by item."""
    frame = getattr(data_source, "dataframe", None)
    if frame is not None:
        try:
            return [str(x) for x in frame[key]]
        except (KeyError, TypeError, ValueError):
            pass
    return [str(data_source[i][key]) for i in range(len(data_source))]


def feedback_from_batch(
    batch: Any, names: list[str], source_key: str = "data_source", pass_threshold: float = 1.0
) -> Feedback:
    """Per-source mean score, pass rate and mean |advantage| from a verl `DataProto`-like batch.

    Reads `non_tensor_batch[source_key]`, `non_tensor_batch["uid"]` (GRPO groups; optional),
    `batch["token_level_scores"]` (summed over tokens) and, when present, `batch["advantages"]`
    averaged over `batch["response_mask"]`. Sources not in `names` are ignored.
    """
    nt = batch.non_tensor_batch
    tb = batch.batch
    index = {k: i for i, k in enumerate(names)}
    labels = [str(x) for x in nt[source_key]]
    keep = np.array([lab in index for lab in labels], dtype=bool)
    src = np.array([index.get(lab, -1) for lab in labels], dtype=np.int64)
    scores = tb["token_level_scores"].detach().float().sum(-1).cpu().numpy()
    adv = None
    keys = set(tb.keys())
    if "advantages" in keys:
        a = tb["advantages"].detach().float()
        if "response_mask" in keys:
            m = tb["response_mask"].detach().float()
            adv = ((a * m).sum(-1) / m.sum(-1).clamp(min=1.0)).cpu().numpy()
        else:
            adv = a.mean(-1).cpu().numpy()
    groups = np.asarray(nt["uid"], dtype=object) if "uid" in nt else None
    return feedback_from_rewards(
        scores[keep],
        src[keep],
        len(names),
        group_ids=groups[keep] if groups is not None else None,
        advantages=adv[keep] if adv is not None else None,
        pass_threshold=pass_threshold,
    )


class MixerCurriculumSampler(_Base):  # type: ignore[misc,valid-type]
    """A verl train sampler whose batches follow a mixer's weights across `data_source` values."""

    def __init__(self, data_source: Sized, data_config: Any, mixer: Mixer | None = None) -> None:
        scfg = _get(data_config, "sampler")
        self.source_key = str(_get(scfg, "source_key", "data_source"))
        self.pass_threshold = float(_get(scfg, "pass_threshold", 1.0))
        batch_size = _get(data_config, "gen_batch_size") or _get(data_config, "train_batch_size")
        if not batch_size:
            raise ValueError("data_config needs train_batch_size (or gen_batch_size)")
        seed = _get(data_config, "seed")
        seed = 0 if seed is None else int(seed)
        labels = dataset_labels(data_source, self.source_key)
        names = sorted(set(labels))
        if mixer is None:
            kw = dict(_get(scfg, "mixer_kwargs", None) or {})
            mixer = make_mixer(
                str(_get(scfg, "mixer", "acodm")), len(names), names=names, seed=seed, **kw
            )
        self.mixed = MixedSampler.from_labels(labels, int(batch_size), mixer=mixer, seed=seed)
        self.mixer = mixer
        self.data_source = data_source
        self.num_batches = max(1, len(labels) // int(batch_size))
        self.epoch_pos = 0

    def __iter__(self) -> Iterator[int]:
        while self.epoch_pos < self.num_batches:
            chunk = self.mixed.next_batch()
            self.epoch_pos += 1
            yield from chunk
        self.epoch_pos = 0

    def __len__(self) -> int:
        return self.num_batches * self.mixed.batch_size

    def update(self, batch: Any) -> None:
        """Feed the mixer one step's batch (called by verl 0.7's trainer after every step)."""
        self.mixer.update(
            feedback_from_batch(batch, self.mixed.names, self.source_key, self.pass_threshold)
        )

    def state_dict(self) -> dict:
        return {"mixed": self.mixed.state_dict(), "epoch_pos": self.epoch_pos}

    def load_state_dict(self, state: dict) -> None:
        self.mixed.load_state_dict(state["mixed"])
        self.epoch_pos = int(state["epoch_pos"])


def mixer_trainer_class(base: type) -> type:
    """A subclass of verl's `RayPPOTrainer` (0.8+) that feeds a `MixerCurriculumSampler` after each actor update."""

    class MixerPPOTrainer(base):  # type: ignore[misc,valid-type]
        def _update_actor(self, batch: Any) -> Any:
            out = super()._update_actor(batch)
            sampler = getattr(self.train_dataloader, "sampler", None)
            if isinstance(sampler, MixerCurriculumSampler) and not HAS_CURRICULUM_API:
                sampler.update(batch)
            return out

    MixerPPOTrainer.__name__ = f"Mixer{base.__name__}"
    return MixerPPOTrainer
