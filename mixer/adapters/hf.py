"""Hugging Face `Trainer`: a callback that feeds the mixer once per optimizer step, and a Trainer
subclass that draws batches with a mixer and measures per-source language-model loss.

`MixerCallback(sampler)` works with any Trainer: call `callback.push(feedback)` from your own
`compute_loss` (once per micro-batch, with `weights_id` from the rows' `mixer_weights_id`, see
`DrawnRows`), or for rewards `callback.push_rewards(rows, rewards, weights_id)`; at `on_step_end`
the pushed feedback is merged and given to the mixer (rewards: to `sampler.learn`), and `on_save`
writes the sampler state into the checkpoint. `MixerTrainer` does all of this for causal language
models: batches come from the sampler, each row carries its row index and the weights id that drew
it (so workers and look-ahead do not shift the credit), per-sample losses are averaged per source
(gathered over processes), and a resumed run continues the exact stream.
Tested single-process only.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch
from transformers import Trainer, TrainerCallback

from mixer.adapters.torch import (
    MIXER_STATE_FILE,
    ROW_KEY,
    WEIGHTS_ID_KEY,
    DrawnRows,
    MixerRepeatSampler,
    load_mixer_state,
    save_mixer_state,
    start_run,
)
from mixer.feedback import Feedback, weights_id_of
from mixer.rows import check_rows
from mixer.sampler import MixedSampler

__all__ = [
    "MixerCallback",
    "MixerTrainer",
    "merge_feedback",
    "causal_lm_sample_loss",
    "MIXER_STATE_FILE",
]


def _id_shares(fb: Feedback) -> dict[int, float]:
    """`fb.weights_id` as {id: examples}, scaled to the feedback's example count."""
    wid, n = fb.weights_id, float(fb.counts.sum()) or 1.0
    if wid is None:
        return {}
    if isinstance(wid, dict):
        total = sum(wid.values())
        return {k: v * n / total for k, v in wid.items()}
    return {wid: n}


def merge_feedback(items: list[Feedback]) -> Feedback:
    """One feedback from several micro-batches: counts add up, the other fields are count-weighted
    means, and the weights ids of the micro-batches are kept with their shares of the examples."""
    if len(items) == 1:
        return items[0]
    if any(f.weights_id is None for f in items) and any(f.weights_id is not None for f in items):
        raise ValueError("some micro-batches name the weights that drew them and some do not")
    counts = np.sum([f.counts for f in items], axis=0)
    shares: dict[int, float] = {}
    for f in items:
        for k, v in _id_shares(f).items():
            shares[k] = shares.get(k, 0.0) + v
    out: dict[str, Any] = {"counts": counts, "weights_id": shares or None}
    for name in ("loss", "reward", "pass_rate", "adv_abs"):
        vals = np.array([f.get(name) for f in items])
        w = np.array([f.counts for f in items]) * np.isfinite(vals)
        tot = np.nansum(np.where(np.isfinite(vals), vals, 0.0) * w, axis=0)
        den = w.sum(axis=0)
        out[name] = np.where(den > 0, tot / np.maximum(den, 1e-12), np.nan)
    sketches = [f.grad_sketch for f in items if f.grad_sketch is not None]
    if sketches:
        out["grad_sketch"] = np.nanmean(np.stack(sketches), axis=0)
    evals = [f.eval_loss for f in items if f.eval_loss is not None]
    out["eval_loss"] = evals[-1] if evals else None
    return Feedback(**out)


def causal_lm_sample_loss(
    logits: torch.Tensor, labels: torch.Tensor, ignore_index: int = -100
) -> torch.Tensor:
    """Per-sample mean next-token cross-entropy (labels are the inputs, shifted inside)."""
    lg = logits[:, :-1].float()
    lb = labels[:, 1:]
    tok = torch.nn.functional.cross_entropy(
        lg.reshape(-1, lg.size(-1)), lb.reshape(-1), ignore_index=ignore_index, reduction="none"
    ).view(lb.shape)
    mask = (lb != ignore_index).float()
    return (tok * mask).sum(1) / mask.sum(1).clamp(min=1.0)


class MixerCallback(TrainerCallback):
    """Feeds `mixed_sampler.mixer` the feedback pushed each optimizer step; saves the sampler state."""

    def __init__(
        self, sampler: MixedSampler, index_sampler: MixerRepeatSampler | None = None
    ) -> None:
        self.mixed_sampler = sampler
        self.index_sampler = index_sampler
        self.pending: list[Feedback] = []
        self.pending_rewards: list[tuple] = []
        self.consumed = 0

    @property
    def sampler(self) -> MixedSampler:
        """Read-only alias of `mixed_sampler` (the adapters' one name for the sampler they drive)."""
        return self.mixed_sampler

    def push(self, feedback: Feedback) -> None:
        """Add one micro-batch's feedback (one sampler chunk)."""
        self.pending.append(feedback)
        self.consumed += 1

    def push_rewards(
        self,
        problems: Any,
        rewards: Any,
        weights_id: int | None = None,
        group_ids: Any = None,
    ) -> None:
        """Instead of `push` (rewards, not losses): one micro-batch's row (`mixer_row`) and reward
        per completion, the weights id that drew it and, optionally, a group id per completion
        (default: one group per row). At `on_step_end` the step's micro-batches go to
        `sampler.learn` together: one update of the problems and of the mixer per optimizer step."""
        p = np.asarray(problems, dtype=np.int64).reshape(-1)
        g = p if group_ids is None else np.asarray(group_ids, dtype=object).reshape(-1)
        k = len(self.pending_rewards)
        self.pending_rewards.append(
            (
                p,
                np.asarray(rewards, dtype=np.float64).reshape(-1),
                weights_id,
                [f"{k}:{x}" for x in g],
            )
        )
        self.consumed += 1

    def _update_problems(self) -> None:
        items, self.pending_rewards = self.pending_rewards, []
        ids = [w for _, _, w, _ in items]
        if any(w is None for w in ids) and any(w is not None for w in ids):
            raise ValueError("some micro-batches name the weights that drew them and some do not")
        shares: dict[int, float] = {}
        for p, _, w, _ in items:
            if w is not None:
                shares[int(w)] = shares.get(int(w), 0.0) + float(p.size)
        wid: int | dict[int, float] | None = (
            None if not shares else next(iter(shares)) if len(shares) == 1 else shares
        )
        self.mixed_sampler.learn(
            np.concatenate([p for p, _, _, _ in items]),
            np.concatenate([r for _, r, _, _ in items]),
            weights_id=wid,
            group_ids=[x for _, _, _, g in items for x in g],
        )

    def on_train_begin(self, args, state, control, **kwargs):  # noqa: ANN001
        """The mixer hears the run's length (one update per optimizer step) and the log says so."""
        steps = int(state.max_steps or 0)
        start_run(
            type(self).__name__,
            self.mixed_sampler,
            steps or None,
            origin=f"HF Trainer: {steps} optimizer steps",
        )
        return control

    def on_step_end(self, args, state, control, **kwargs):  # noqa: ANN001
        if self.pending:
            self.mixed_sampler.mixer.update(merge_feedback(self.pending))
            self.pending = []
        if self.pending_rewards:
            self._update_problems()
        return control

    def on_save(self, args, state, control, **kwargs):  # noqa: ANN001
        if state.is_world_process_zero:
            out = os.path.join(args.output_dir, f"checkpoint-{state.global_step}")
            st = (
                self.index_sampler.state_dict(consumed=self.consumed)
                if self.index_sampler is not None
                else {
                    "sampler": self.mixed_sampler.state_dict(),
                    "pending": [],
                    "drawn": self.consumed,
                }
            )
            save_mixer_state(out, st)
        return control


class MixerTrainer(Trainer):
    """A `Trainer` for causal LMs whose batches follow a mixer; train rows need `input_ids` (+ labels).

    `sampler` is a `MixedSampler` (or any `BatchSource`) over the train set's row indices with
    `batch_size` equal to `per_device_train_batch_size`. Rows reach `compute_loss` with their row
    index and the id of the weights that drew them (`DrawnRows`), so the step is credited to those
    weights with any `dataloader_num_workers`. Resuming sets `ignore_data_skip`: the restored
    sampler already knows where the stream stands.
    """

    def __init__(self, *args: Any, sampler: MixedSampler, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if sampler.batch_size != self.args.per_device_train_batch_size:
            raise ValueError("sampler.batch_size must equal per_device_train_batch_size")
        if self.train_dataset is not None:
            check_rows(sampler, self.train_dataset, where="train_dataset")
        self.mixed_sampler = sampler
        self.index_sampler = MixerRepeatSampler(sampler, mini_repeat_count=1, repeat_count=1)
        self.mixer_callback = MixerCallback(sampler, self.index_sampler)
        self.add_callback(self.mixer_callback)
        self.args.ignore_data_skip = True
        self._lookup = sampler.source_of

    def _get_train_sampler(self, train_dataset: Any = None):  # noqa: ANN201
        return self.index_sampler

    def get_train_dataloader(self):  # noqa: ANN201
        return self._get_dataloader(
            dataset=DrawnRows(self.train_dataset),
            description="Training",
            batch_size=self._train_batch_size,
            sampler_fn=self._get_train_sampler,
            is_training=True,
        )

    def _remove_unused_columns(self, dataset, description=None):  # noqa: ANN001, ANN202
        return dataset

    def _get_collator_with_removed_columns(self, data_collator, description=None):  # noqa: ANN001, ANN202
        return data_collator

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):  # noqa: ANN001
        inputs.pop("row_index", None)
        row = inputs.pop(ROW_KEY, None)
        wids = inputs.pop(WEIGHTS_ID_KEY, None)
        labels = inputs.get("labels", inputs["input_ids"])
        model_inputs = {k: v for k, v in inputs.items() if k != "labels"}
        outputs = model(**model_inputs)
        per_sample = causal_lm_sample_loss(outputs.logits, labels)
        if model.training and row is not None:
            n = self.mixed_sampler.mixer.n_sources
            src = torch.as_tensor(self._lookup(row.cpu().numpy()), device=per_sample.device)
            sums = torch.zeros(n, device=per_sample.device).index_add_(0, src, per_sample.detach())
            cnts = torch.zeros(n, device=per_sample.device).index_add_(
                0, src, torch.ones_like(per_sample)
            )
            both = (
                self.accelerator.gather(torch.stack([sums, cnts])[None])
                .reshape(-1, 2, n)
                .sum(0)
                .cpu()
                .numpy()
            )
            loss = np.where(both[1] > 0, both[0] / np.maximum(both[1], 1), np.nan)
            wid = weights_id_of(wids.reshape(-1).tolist()) if wids is not None else None
            self.mixer_callback.push(Feedback(counts=both[1], loss=loss, weights_id=wid))
        loss = per_sample.mean()
        return (loss, outputs) if return_outputs else loss

    def _load_rng_state(self, checkpoint: str | None) -> None:
        super()._load_rng_state(checkpoint)
        st = load_mixer_state(checkpoint)
        if st is not None:
            self.index_sampler.load_state_dict(st)
            self.mixer_callback.consumed = int(st["drawn"])
