"""verl: a train sampler driven by a mixer, rows that carry the weights that drew them, and the feedback.

verl 0.7.x: `data.sampler.class_path=pkg://mixer.adapters.verl`, `data.sampler.class_name=
MixerCurriculumSampler`, `data.dataloader_num_workers=0` (verl 0.7 asserts it for a curriculum
sampler); verl's trainer builds it with `(data_source, data_config)` and calls `update(batch)`
after every step. verl 0.8+ has no sampler hook in its config: run
`python -m mixer.adapters.verl_main` (same overrides as `verl.trainer.main_ppo`), which passes this
sampler as `train_sampler` to the legacy trainer or swaps it into the v1 trainer's dataloader.

Credit: verl's StatefulDataLoader runs `num_workers * prefetch_factor` batches ahead. The sampler
yields `DrawnIndex`es and `MixerRLHFDataset` (verl's `RLHFDataset`, selected with
`data.custom_cls`) writes each row's index and weights id into its `extra_info`, which verl keeps
with the batch up to the update: the step is credited to the weights that drew it at any prefetch
depth. Without that dataset the sampler needs `data.dataloader_num_workers=0` (then the batch fed
back is the one drawn last) and refuses anything else.
Options are read from `data.sampler`: `mixer` (policy name, default "acodm"), `mixer_kwargs`,
`source_key` (default "data_source"; a top-level column or an `extra_info` field),
`pass_threshold` (default 1.0). Problem-level sampling inside each source (docs/frontier.md):
`problems` ("frontier", "uniform", "greso"; default none: `MixedSampler`), `problem_kwargs`,
`difficulty_key` / `difficulty_std_key` (the frontier prior, default "difficulty" /
"difficulty_std", top-level or in `extra_info`; null for none). A problem sampler learns each
row's scores, so it needs the rows to carry their index (`MixerRLHFDataset`).

Validation: the legacy trainer of `verl_main` (`mixer_trainer_class`) gives each of verl's
validations (`val_before_train`, every `trainer.test_freq` steps) to the sampler
(`hear_validation`): its `val-core/<data_source>/reward/mean@N` as a held-out loss
(`validation_eval_loss`), fed to the mixer as `Feedback.eval_loss` with the next step's feedback
(`feed_validation`, default true; false: never). verl 0.7's own trainer and the v1 trainer do not
call it: set `sampler.eval_pending` (or call `hear_validation`) yourself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sized
from typing import Any

import numpy as np
from torch.utils.data import Sampler

from mixer.adapters.torch import (
    MIXER_STATE_FILE,
    ROW_KEY,
    WEIGHTS_ID_KEY,
    _reward_as_loss,
    _reward_range_of,
    _takes_eval_loss,
    drawn_fields,
    load_mixer_state,
    save_mixer_state,
    start_run,
)
from mixer.feedback import Feedback, feedback_from_rewards, weights_id_of
from mixer.log import logger
from mixer.policies import make_mixer
from mixer.policies.base import Mixer
from mixer.problems import PROBLEM_SAMPLERS, make_problem_sampler
from mixer.problems.base import ProblemSampler
from mixer.problems.frontier import FrontierSampler
from mixer.rows import ID_COLUMN, check_rows
from mixer.sampler import LEARNT_FORMAT, LEARNT_FORMAT_KEY, BatchSource, DrawnIndex, MixedSampler

try:  # verl <= 0.7.x
    from verl.experimental.dataset.sampler import AbstractCurriculumSampler as _Base

    HAS_CURRICULUM_API = True
except ImportError:  # verl missing, or 0.8+ where the module is gone
    _Base = Sampler
    HAS_CURRICULUM_API = False

try:
    from verl.utils.dataset.rl_dataset import RLHFDataset as _RLHFDataset
except Exception:  # noqa: BLE001 - verl missing, or a verl that cannot import here
    _RLHFDataset = None

__all__ = [
    "MixerCurriculumSampler",
    "feedback_from_batch",
    "feedback_from_rows",
    "feedback_from_tensordict",
    "dataset_labels",
    "mixer_trainer_class",
    "tag_row",
    "HAS_CURRICULUM_API",
    "MIXER_STATE_FILE",
    "PROBLEM_STATE_FILE",
    "dataset_numbers",
    "feed_tensordict",
    "rows_of_tensordict",
    "save_sampler_learning",
    "load_sampler_learning",
    "validation_eval_loss",
]

#: File the trainer subclasses write next to verl's own checkpoint (`global_step_N/`).
#: Where checkpoints written before 0.2 kept a problem sampler's learnt state (read on resume;
#: now `MIXER_STATE_FILE` holds the sampler's whole `learnt_state()`).
PROBLEM_STATE_FILE = "problem_sampler_state.pt"


def _get(cfg: Any, key: str, default: Any = None) -> Any:
    if cfg is None:
        return default
    if isinstance(cfg, Mapping):
        return cfg.get(key, default)
    getter = getattr(cfg, "get", None)
    return getter(key, default) if getter is not None else getattr(cfg, key, default)


def tag_row(row: dict, index: Any) -> dict:
    """Write the row index and the weights id of a drawn index into `row["extra_info"]`.

    `extra_info` is one of the fields verl keeps in the batch from the loader to the actor update
    (its legacy trainer moves every other non-tensor field into the generation batch)."""
    info = row.get("extra_info")
    info = dict(info) if isinstance(info, Mapping) else {}
    info.update(drawn_fields(index))
    row["extra_info"] = info
    return row


if _RLHFDataset is not None:
    __all__.append("MixerRLHFDataset")

    class MixerRLHFDataset(_RLHFDataset):
        """verl's `RLHFDataset` whose rows carry their index and the weights id that drew them
        (in `extra_info`); select it with `data.custom_cls.path=pkg://mixer.adapters.verl`,
        `data.custom_cls.name=MixerRLHFDataset`."""

        carries_drawn_rows = True

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            config = kwargs.get("config", args[2] if len(args) > 2 else None)
            path = str(_get(_get(config, "sampler"), "class_path", "") or "")
            if not HAS_CURRICULUM_API and path.endswith("mixer.adapters.verl"):
                raise ValueError(
                    f"data.sampler.class_path={path}: verl 0.8+ ignores it and would draw at "
                    "random; start training with `python -m mixer.adapters.verl_main` instead "
                    "of verl.trainer.main_ppo"
                )
            super().__init__(*args, **kwargs)

        def __getitem__(self, item: Any) -> dict:
            return tag_row(super().__getitem__(item), item)


def _frame_column(data_source: Any, key: str) -> list[str] | None:
    """The `key` value of every example from the dataset's table (verl's RLHFDataset keeps a
    `dataframe`): a column of it or a field of its `extra_info` column; None where neither holds
    it for every row. Never reads rows one by one."""
    frame = getattr(data_source, "dataframe", None)
    if frame is None:
        return None
    cols = getattr(frame, "column_names", None) or list(getattr(frame, "columns", []))
    if key in cols:
        return [str(x) for x in frame[key]]
    if "extra_info" in cols:
        infos = list(frame["extra_info"])
        if infos and all(isinstance(x, Mapping) and key in x for x in infos):
            return [str(x[key]) for x in infos]
    return None


def dataset_labels(data_source: Any, key: str) -> list[str]:
    """The `key` value of every example: from the dataset's table (`_frame_column`), else read item
    by item (a column or an `extra_info` field of each row)."""
    from_frame = _frame_column(data_source, key)
    if from_frame is not None:
        return from_frame
    labels = []
    for i in range(len(data_source)):
        row = data_source[i]
        info = row.get("extra_info") if isinstance(row.get("extra_info"), Mapping) else {}
        if key not in row and key not in info:
            raise KeyError(
                f"rows have no {key!r} column or extra_info field (data.sampler.source_key)"
            )
        labels.append(str(row[key] if key in row else info[key]))
    return labels


def _frame_ids(data_source: Any) -> list[str] | None:
    """The problem id of every row from the dataset's table (top level or `extra_info`, as
    `codemix export --format verl` writes it), or None; never reads rows one by one."""
    return _frame_column(data_source, ID_COLUMN)


def _is_frontier(kind: str) -> bool:
    return PROBLEM_SAMPLERS.lookup(kind) is FrontierSampler


def dataset_numbers(data_source: Any, key: str) -> np.ndarray:
    """The numeric `key` value of every example (NaN where null), from a column or an `extra_info`
    field as `dataset_labels`; a key that no example has raises KeyError."""
    frame = getattr(data_source, "dataframe", None)
    vals: list | None = None
    if frame is not None:
        cols = getattr(frame, "column_names", None) or list(getattr(frame, "columns", []))
        if key in cols:
            vals = list(frame[key])
        elif "extra_info" in cols:
            infos = [x if isinstance(x, Mapping) else {} for x in frame["extra_info"]]
            if any(key in x for x in infos):
                vals = [x.get(key) for x in infos]
    if vals is None:
        vals = []
        for i in range(len(data_source)):
            row = data_source[i]
            info = row.get("extra_info") if isinstance(row.get("extra_info"), Mapping) else {}
            vals.append(row[key] if key in row else info.get(key))
        if all(v is None for v in vals):
            raise KeyError(
                f"rows have no {key!r} column or extra_info field (data.sampler.difficulty_key; "
                "null for no prior)"
            )
    try:
        return np.array([np.nan if v is None else float(v) for v in vals], dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{key!r} must hold numbers or nulls") from None


def _infos(non_tensor: Mapping[str, Any]) -> list[Mapping]:
    infos = non_tensor.get("extra_info")
    if infos is None:
        return []
    return [x if isinstance(x, Mapping) else {} for x in infos]


def feedback_from_rows(
    scores: np.ndarray,
    non_tensor: Mapping[str, Any],
    names: list[str],
    source_key: str = "data_source",
    pass_threshold: float = 1.0,
    advantages: np.ndarray | None = None,
    source_of: Any = None,
) -> Feedback:
    """Per-source mean score, pass rate and mean |advantage| of one step's responses.

    `scores` (one per response) and, when given, `advantages` (one per response, else GRPO-style
    from `uid`). The source of a response is `source_of(extra_info["mixer_row"])` when the rows
    carry their index, else its `source_key` (top-level or in `extra_info`); responses of other
    sources are ignored. `weights_id` comes from the rows' `extra_info["mixer_weights_id"]`.
    """
    infos = _infos(non_tensor)
    n = len(scores)
    if source_of is not None and infos and all(ROW_KEY in x for x in infos):
        src = np.asarray(source_of([int(x[ROW_KEY]) for x in infos]), dtype=np.int64)
    else:
        if source_key in non_tensor:
            labels = [str(x) for x in non_tensor[source_key]]
        elif infos and all(source_key in x for x in infos):
            labels = [str(x[source_key]) for x in infos]
        else:
            raise KeyError(
                f"the batch has no {source_key!r} field, top-level or in extra_info "
                f"(data.sampler.source_key); fields: {sorted(non_tensor)}"
            )
        index = {k: i for i, k in enumerate(names)}
        src = np.array([index.get(lab, -1) for lab in labels], dtype=np.int64)
    if len(src) != n:
        raise ValueError(f"{n} scores for {len(src)} rows")
    keep = src >= 0
    groups = np.asarray(non_tensor["uid"], dtype=object) if "uid" in non_tensor else None
    wid = (
        weights_id_of(x.get(WEIGHTS_ID_KEY) for x, k in zip(infos, keep, strict=True) if k)
        if infos
        else None
    )
    return feedback_from_rewards(
        np.asarray(scores, dtype=np.float64)[keep],
        src[keep],
        len(names),
        group_ids=groups[keep] if groups is not None else None,
        advantages=np.asarray(advantages)[keep] if advantages is not None else None,
        pass_threshold=pass_threshold,
        weights_id=wid,
    )


def _scores_and_advantages(batch: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """A verl `DataProto` after the advantage step: each response's score
    (`token_level_scores` summed over tokens) and advantage (`advantages` averaged over
    `response_mask` when present; None before the advantage step)."""
    tb = batch.batch
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
    return scores, adv


def feedback_from_batch(
    batch: Any,
    names: list[str],
    source_key: str = "data_source",
    pass_threshold: float = 1.0,
    source_of: Any = None,
) -> Feedback:
    """`feedback_from_rows` for a verl `DataProto` after the advantage step (scores and
    advantages as `_scores_and_advantages` reads them)."""
    scores, adv = _scores_and_advantages(batch)
    return feedback_from_rows(
        scores, batch.non_tensor_batch, names, source_key, pass_threshold, adv, source_of
    )


def validation_eval_loss(
    metrics: Mapping[str, Any], reward_range: tuple[float, float] = (0.0, 1.0)
) -> float | None:
    """The held-out loss of one verl validation (`RayPPOTrainer._validate`'s metrics): per data
    source the mean score over its responses, `val-core/<data_source>/reward/mean@N` (the largest
    N; `acc` where a source has no `reward`), averaged over the data sources, as
    (high - r) / (high - low) over `reward_range`; None when the metrics hold no such value."""
    best: dict[str, tuple[int, int, float]] = {}  # source -> (var rank, N, value)
    for key, value in metrics.items():
        parts = str(key).split("/")
        if len(parts) < 4 or parts[0] != "val-core" or not parts[-1].startswith("mean@"):
            continue
        var = parts[-2]
        if var not in ("reward", "acc"):
            continue
        try:
            n, r = int(parts[-1][len("mean@") :]), float(value)
        except (TypeError, ValueError):
            continue
        if not np.isfinite(r):
            continue
        source = "/".join(parts[1:-2])
        got = (int(var == "reward"), n, r)
        if source not in best or got[:2] > best[source][:2]:
            best[source] = got
    if not best:
        return None
    return _reward_as_loss(float(np.mean([v for _, _, v in best.values()])), reward_range)


class MixerCurriculumSampler(_Base):
    """A verl train sampler whose batches follow a mixer's weights across the `source_key` values.

    `sampler=` takes any `BatchSource` over the dataset's rows instead (its `mixer` is fed).
    Refuses a loader with workers when the rows cannot carry their weights id (see the module
    docstring): the feedback of a step would otherwise be credited to the wrong weights.
    """

    def __init__(
        self,
        data_source: Sized,
        data_config: Any,
        mixer: Mixer | None = None,
        sampler: BatchSource | None = None,
        batch_size: int | None = None,
    ) -> None:
        scfg = _get(data_config, "sampler")
        self.source_key = str(_get(scfg, "source_key", "data_source"))
        self.pass_threshold = float(_get(scfg, "pass_threshold", 1.0))
        batch_size = (
            batch_size
            or _get(data_config, "gen_batch_size")
            or _get(data_config, "train_batch_size")
        )
        if not batch_size:
            raise ValueError("data_config needs train_batch_size (or gen_batch_size)")
        self.carries_ids = bool(getattr(data_source, "carries_drawn_rows", False))
        workers = int(_get(data_config, "dataloader_num_workers", 0) or 0)
        if workers > 0 and not self.carries_ids:
            raise ValueError(
                f"data.dataloader_num_workers={workers}: verl's loader would draw up to "
                f"{2 * workers} batches ahead and the mixer could not tell which weights drew the "
                "batch it learns from. Set data.custom_cls.path=pkg://mixer.adapters.verl "
                "data.custom_cls.name=MixerRLHFDataset (rows carry the weights id), or "
                "data.dataloader_num_workers=0"
            )
        # a sampler given, or a problem-level one configured, learns from each row's score and
        # needs the rows to carry their index; the default one can also read their source label
        self.learns_rows = sampler is not None or bool(_get(scfg, "problems", None))
        if sampler is None:
            seed = _get(data_config, "seed")
            seed = 0 if seed is None else int(seed)
            labels = dataset_labels(data_source, self.source_key)
            names = sorted(set(labels))
            kind = _get(scfg, "problems", None)
            name = _get(scfg, "mixer", None)
            mixer_kw = dict(_get(scfg, "mixer_kwargs", None) or {})
            # the frontier sampler with no mixer named is the default stack (its own ACODM)
            stack = mixer is None and name is None and bool(kind) and _is_frontier(str(kind))
            if mixer is None and not stack:
                mixer = make_mixer(
                    str(name or "acodm"), len(names), names=names, seed=seed, **mixer_kw
                )
            if kind:
                sampler = self._problem_sampler(
                    str(kind), scfg, data_source, labels, int(batch_size), mixer, seed,
                    mixer_kw if stack else None,
                )  # fmt: skip
            else:
                sampler = MixedSampler.from_labels(labels, int(batch_size), mixer=mixer, seed=seed)
        elif sampler.batch_size != int(batch_size):
            raise ValueError(
                f"sampler.batch_size {sampler.batch_size} differs from verl's batch {batch_size}"
            )
        else:
            check_rows(
                sampler, data_source, where="verl's train dataset", ids=_frame_ids(data_source)
            )
        if sampler.drops_groups:
            raise ValueError(
                f"{type(sampler).__name__} drops groups after rollout; verl's PPO trainer "
                "trains on every group it is given: for DAPO's filter use verl's own "
                "(algorithm.filter_groups.enable=true, v1 trainer) with a sampler that keeps "
                "every group; it hears the groups verl drops"
            )
        if self.learns_rows and not self.carries_ids:
            raise ValueError(
                f"{type(sampler).__name__} learns each row's scores and needs the rows to carry "
                "their index: set data.custom_cls.path=pkg://mixer.adapters.verl "
                "data.custom_cls.name=MixerRLHFDataset"
            )
        self.mixed_sampler = sampler
        self.mixer = sampler.mixer
        #: whether verl's validations reach the mixer (`hear_validation`; data.sampler.feed_validation)
        self.feed_validation = bool(_get(scfg, "feed_validation", True)) and _takes_eval_loss(
            sampler.learn
        )
        #: the held-out loss of the latest validation, fed with the next step's feedback
        self.eval_pending: float | None = None
        self.data_source = data_source
        self.num_batches = max(1, len(data_source) // int(batch_size))
        self.epoch_pos = 0
        #: prompts of each draw not learnt yet, by weights id (`hear` learns a draw once it is whole)
        self.draw_sizes: dict[int, int] = {}
        self._held: list[tuple[float, dict]] = []  # (score, fields) of responses heard, not learnt
        # said before verl starts its workers, so a run shows at once that the mixer is active
        logger.info(
            "verl: mixing with %s",
            sampler.describe() if hasattr(sampler, "describe") else type(sampler).__name__,
        )

    @property
    def mixed(self) -> BatchSource:
        """Read-only alias of `mixed_sampler` (the adapters' one name for the sampler they drive)."""
        return self.mixed_sampler

    def start(self, total_training_steps: int | None) -> None:
        """The trainer knows the run's length: one mixer update per training step."""
        start_run(
            "verl", self.mixed_sampler, total_training_steps, origin="verl: total_training_steps"
        )

    @staticmethod
    def _problem_sampler(
        kind: str,
        scfg: Any,
        data_source: Sized,
        labels: list[str],
        batch_size: int,
        mixer: Mixer | None,
        seed: int,
        mixer_kwargs: dict | None = None,
    ) -> ProblemSampler:
        """`make_problem_sampler(kind)` over the rows grouped by source, with the build's prior
        (every problem sampler takes it) from `difficulty_key` / `difficulty_std_key` and a
        `never_solved` column where the rows have one; `mixer` None: the sampler's own default."""
        names = sorted(set(labels))
        lab = np.asarray(labels, dtype=object)
        groups = {n: np.flatnonzero(lab == n) for n in names}
        kw = dict(_get(scfg, "problem_kwargs", None) or {})
        if mixer_kwargs:
            kw["mixer_kwargs"] = mixer_kwargs
        dkey = _get(scfg, "difficulty_key", "difficulty")
        skey = _get(scfg, "difficulty_std_key", "difficulty_std")
        if dkey:
            try:
                kw["difficulty"] = dataset_numbers(data_source, str(dkey))
            except KeyError:
                # the frontier's model is the prior's, and a named key must exist; the other
                # samplers go without a prior
                if _is_frontier(kind) or _get(scfg, "difficulty_key", None):
                    raise
            if skey and "difficulty" in kw:
                try:
                    kw["difficulty_std"] = dataset_numbers(data_source, str(skey))
                except KeyError:
                    if _get(scfg, "difficulty_std_key", None):  # named, so it must exist
                        raise
            if "difficulty" in kw:
                try:
                    kw["never_solved"] = dataset_numbers(data_source, "never_solved") > 0.5
                except KeyError:
                    pass
        return make_problem_sampler(kind, groups, batch_size, mixer=mixer, seed=seed, **kw)

    def __iter__(self) -> Iterator[DrawnIndex]:
        while self.epoch_pos < self.num_batches:
            chunk = self.mixed_sampler.next_batch()
            wid = self.mixed_sampler.last_weights_id
            if wid is not None:
                self.draw_sizes[wid] = len(chunk)
                while len(self.draw_sizes) > self.mixer.max_pending:
                    del self.draw_sizes[next(iter(self.draw_sizes))]
            self.epoch_pos += 1
            for i in chunk:
                yield DrawnIndex(i, wid)
        self.epoch_pos = 0

    def __len__(self) -> int:
        return self.num_batches * self.mixed_sampler.batch_size

    def hear_validation(self, metrics: Mapping[str, Any]) -> float | None:
        """One verl validation's metrics: its held-out loss (`validation_eval_loss` over the
        sampler's `reward_range`, (0, 1) for a sampler without one) waits in `eval_pending` for
        the next step's feedback (a later validation replaces it). Returns the loss, or None
        (nothing to read, or `feed_validation` off)."""
        if not self.feed_validation:
            return None
        loss = validation_eval_loss(metrics, _reward_range_of(self.mixed_sampler))
        if loss is None:
            logger.warning(
                "verl: a validation gave the mixer no held-out loss (no val-core/<data_source>/"
                "reward/mean@N among %d metrics)",
                len(metrics),
            )
            return None
        self.eval_pending = loss
        return loss

    def _take_eval_loss(self) -> dict[str, Any]:
        """`{"eval_loss": ...}` once for the validation waiting, else nothing."""
        if self.eval_pending is None:
            return {}
        out, self.eval_pending = {"eval_loss": self.eval_pending}, None
        return out

    def feedback(self, batch: Any) -> Feedback:
        """The `Feedback` of one step's `DataProto` (scores, advantages), naming the weights that
        drew it: from the rows, or the last draw when the loader has no workers."""
        fb = feedback_from_batch(
            batch,
            self.mixed_sampler.names,
            self.source_key,
            self.pass_threshold,
            self.mixed_sampler.source_of,
        )
        if fb.weights_id is None:
            fb.weights_id = self.mixed_sampler.last_weights_id
        return fb

    def update(self, batch: Any) -> None:
        """Learn from one step's `DataProto` after the advantage step (verl 0.7's trainer calls it
        after every step): scores and advantages per response (`learn_rows`)."""
        scores, advantages = _scores_and_advantages(batch)
        self.learn_rows(scores, batch.non_tensor_batch, advantages)

    def learn_rows(
        self,
        scores: np.ndarray,
        non_tensor: Mapping[str, Any],
        advantages: np.ndarray | None = None,
    ) -> None:
        """One step's responses, one call: `sampler.learn` with each response's row
        (`extra_info["mixer_row"]`), its group (`uid`), the weights id the rows carry; rows that do
        not carry their index (verl's own dataset class) give the mixer their source's feedback by
        their `source_key` label instead."""
        infos = _infos(non_tensor)
        carried = len(infos) == len(scores) and bool(infos) and all(ROW_KEY in x for x in infos)
        if not carried:
            if self.learns_rows:
                raise ValueError(
                    "the batch's extra_info lacks mixer_row: the rows must come from "
                    "MixerRLHFDataset"
                )
            fb = feedback_from_rows(
                scores, non_tensor, self.mixed_sampler.names, self.source_key, self.pass_threshold,
                advantages,
            )  # fmt: skip
            if fb.weights_id is None:
                fb.weights_id = self.mixed_sampler.last_weights_id
            held_out = self._take_eval_loss()
            if held_out:
                fb.eval_loss = held_out["eval_loss"]
            self.mixer.update(fb)
            return
        wid = weights_id_of(x.get(WEIGHTS_ID_KEY) for x in infos)
        uid = non_tensor.get("uid")
        self.mixed_sampler.learn(
            np.array([int(x[ROW_KEY]) for x in infos], dtype=np.int64),
            np.asarray(scores, dtype=np.float64),
            weights_id=self.mixed_sampler.last_weights_id if wid is None else wid,
            group_ids=None if uid is None else np.asarray(_as_list(uid), dtype=object),
            advantages=advantages,
            pass_threshold=self.pass_threshold,
            **self._take_eval_loss(),
        )

    def hear(self, scores: np.ndarray, non_tensor: Mapping[str, Any]) -> int:
        """Responses verl generated, trained on or not, in any number of pieces: each draw is
        learnt (`learn_rows`, one call for all draws completed here) once every prompt it drew has
        been heard, so the weights that drew it are credited once, with all of its groups. Rows
        that do not carry their index are learnt at once. Returns the responses learnt."""
        infos = _infos(non_tensor)
        if not (len(infos) == len(scores) and infos and all(ROW_KEY in x for x in infos)):
            self.learn_rows(scores, non_tensor)
            return len(scores)
        keys = [k for k in ("uid", "extra_info", self.source_key) if k in non_tensor]
        cols = {k: _as_list(non_tensor[k]) for k in keys}
        for i, score in enumerate(np.asarray(scores, dtype=np.float64)):
            self._held.append((float(score), {k: cols[k][i] for k in keys}))
        prompts: dict[Any, set] = {}
        for _, row in self._held:
            prompts.setdefault(row["extra_info"].get(WEIGHTS_ID_KEY), set()).add(
                row.get("uid", row["extra_info"][ROW_KEY])
            )
        done = {
            w
            for w, seen in prompts.items()
            if w is None or w not in self.draw_sizes or len(seen) >= self.draw_sizes[w]
        }
        ready = [x for x in self._held if x[1]["extra_info"].get(WEIGHTS_ID_KEY) in done]
        if not ready:
            return 0
        self._held = [x for x in self._held if x[1]["extra_info"].get(WEIGHTS_ID_KEY) not in done]
        for w in done:
            self.draw_sizes.pop(w, None)
        common = [k for k in keys if all(k in row for _, row in ready)]
        self.learn_rows(
            np.array([sc for sc, _ in ready]), {k: [row[k] for _, row in ready] for k in common}
        )
        return len(ready)

    @property
    def held_rollouts(self) -> int:
        """Responses heard whose draw is not whole yet (learnt when it is)."""
        return len(self._held)

    def state_dict(self) -> dict:
        """verl's loader's snapshot of the sampler (taken when it draws): the draw position and
        what the sampler learnt so far; what it learns later, and the validation waiting
        (`eval_pending`), are saved at checkpoint time (`save_sampler_learning`)."""
        return {"mixed": self.mixed_sampler.state_dict(), "epoch_pos": self.epoch_pos}

    def load_state_dict(self, state: dict) -> None:
        self.mixed_sampler.load_state_dict(state["mixed"])
        self.epoch_pos = int(state["epoch_pos"])


def _checkpoint_dir(config: Any, global_steps: int) -> str:
    """The `global_step_N` folder verl's legacy trainer saves to or resumes from."""
    trainer = config.trainer
    if _get(trainer, "resume_mode") == "resume_path" and _get(trainer, "resume_from_path"):
        path = str(trainer.resume_from_path)
    else:
        path = os.path.join(str(trainer.default_local_dir), f"global_step_{global_steps}")
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


def save_sampler_learning(sampler: MixerCurriculumSampler, path: str) -> None:
    """Write what the sampler learnt from rewards into a checkpoint folder: the mixer's state
    (`mixer_state.pt`) and a problem sampler's learnt state (`problem_sampler_state.pt`)."""
    save_mixer_state(
        path, {**sampler.mixed_sampler.learnt_state(), "eval_pending": sampler.eval_pending}
    )


def load_sampler_learning(sampler: MixerCurriculumSampler, path: str) -> None:
    """Restore `save_sampler_learning` (after verl restored its loader's snapshot of the sampler,
    taken when it drew, before the rewards of the batches in flight arrived)."""
    import torch

    state = load_mixer_state(path)
    if state is not None:
        if state.get(LEARNT_FORMAT_KEY) == LEARNT_FORMAT:
            sampler.mixed_sampler.load_learnt_state(state)
            if "eval_pending" in state:
                got = state["eval_pending"]
                sampler.eval_pending = None if got is None else float(got)
        else:  # written before 0.2: the mixer's state here, a problem sampler's in its own file
            sampler.mixer.load_state_dict(state)
    learnt = os.path.join(path, PROBLEM_STATE_FILE)
    if os.path.isfile(learnt):
        sampler.mixed_sampler.load_learnt_state(torch.load(learnt, weights_only=True))


def mixer_trainer_class(base: type) -> type:
    """A subclass of verl's legacy `RayPPOTrainer` (0.8+) that feeds its `MixerCurriculumSampler`.

    The mixer learns from each step's batch after the advantages (in `_update_actor`, or in
    `_update_critic` during a critic warm-up, when the actor is not updated), before verl saves
    a checkpoint; the mixer's state is saved next to it (`mixer_state.pt`) and restored on resume
    (the loader's own snapshot of the sampler is taken when a batch is drawn, updates earlier).
    Each validation (`_validate`: before training, every `test_freq` steps after the step's
    update) goes to the sampler (`hear_validation`), which feeds it to the mixer with the next
    step's feedback; the value waiting is saved with the checkpoint. A resumed run that validates
    before training (`val_before_train`, verl's default) replaces the saved value with that one.
    """

    class MixerPPOTrainer(base):
        def _mixer_sampler(self) -> MixerCurriculumSampler | None:
            sampler = getattr(self.train_dataloader, "sampler", None)
            return sampler if isinstance(sampler, MixerCurriculumSampler) else None

        def _create_dataloader(self, *args: Any, **kwargs: Any) -> None:
            super()._create_dataloader(*args, **kwargs)
            sampler = self._mixer_sampler()
            if sampler is not None:
                sampler.start(self.total_training_steps)

        def _feed_mixer(self, batch: Any) -> None:
            sampler = self._mixer_sampler()
            if sampler is not None and not HAS_CURRICULUM_API:  # 0.7's fit calls update itself
                sampler.update(batch)

        def _update_critic(self, batch: Any) -> Any:
            out = super()._update_critic(batch)
            if self.config.trainer.critic_warmup > self.global_steps:
                self._feed_mixer(batch)
            return out

        def _update_actor(self, batch: Any) -> Any:
            out = super()._update_actor(batch)
            self._feed_mixer(batch)
            return out

        def _validate(self, *args: Any, **kwargs: Any) -> Any:
            metrics = super()._validate(*args, **kwargs)
            sampler = self._mixer_sampler()
            if sampler is not None and isinstance(metrics, Mapping):
                sampler.hear_validation(metrics)
            return metrics

        def _save_checkpoint(self) -> None:
            super()._save_checkpoint()
            sampler = self._mixer_sampler()
            if sampler is not None:
                save_sampler_learning(sampler, _checkpoint_dir(self.config, self.global_steps))

        def _load_checkpoint(self) -> Any:
            out = super()._load_checkpoint()
            sampler = self._mixer_sampler()
            if sampler is not None and self.global_steps > 0:
                load_sampler_learning(sampler, _checkpoint_dir(self.config, self.global_steps))
            return out

    MixerPPOTrainer.__name__ = f"Mixer{base.__name__}"
    return MixerPPOTrainer


def _as_list(x: Any) -> list:
    """A NonTensorStack, numpy array or list as a Python list."""
    tolist = getattr(x, "tolist", None)
    return list(tolist()) if tolist is not None else list(x)


def rows_of_tensordict(td: Any, fields: Iterable[str] = ()) -> tuple[np.ndarray, dict[str, list]]:
    """Each response's summed `rm_scores` (per token, possibly jagged) and its `uid`, `extra_info`
    and `fields` (source columns kept top-level), from a TensorDict verl's transfer queue returns."""
    import torch

    scores = td["rm_scores"]
    if getattr(scores, "is_nested", False):
        scores = torch.nested.to_padded_tensor(scores, 0.0)
    scores = scores.detach().float().reshape(len(td), -1).sum(-1).cpu().numpy()
    non_tensor = {k: _as_list(td[k]) for k in ("uid", "extra_info", *fields) if k in td.keys()}
    return scores, non_tensor


def feedback_from_tensordict(
    td: Any, sampler: MixerCurriculumSampler, fields: Iterable[str] = ()
) -> Feedback:
    """The v1 trainer's feedback from the TensorDict verl's transfer queue returns for a step
    (`rows_of_tensordict`); |advantage| is computed GRPO-style from the scores per `uid`."""
    scores, non_tensor = rows_of_tensordict(td, fields)
    fb = feedback_from_rows(
        scores,
        non_tensor,
        sampler.mixed_sampler.names,
        sampler.source_key,
        sampler.pass_threshold,
        None,
        sampler.mixed_sampler.source_of,
    )
    if fb.weights_id is None:
        fb.weights_id = sampler.mixed_sampler.last_weights_id
    return fb


def feed_tensordict(td: Any, sampler: MixerCurriculumSampler, fields: Iterable[str] = ()) -> None:
    """The v1 trainer's step at once: `rows_of_tensordict` to `sampler.learn_rows`."""
    sampler.learn_rows(*rows_of_tensordict(td, fields))
