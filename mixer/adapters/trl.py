"""TRL: a GRPOTrainer whose prompts are chosen by a mixer, fed with per-source reward statistics.

`_get_train_sampler` returns a `MixerRepeatSampler` with TRL's `RepeatSampler` layout (each prompt
`num_generations` times in a row, each generation batch repeated `num_iterations *
steps_per_generation` times), the same index stream on every rank: every rank holds an identical
mixer and feeds it the rewards gathered across all ranks. The train loader reads rows through
`DrawnRows`, so each prompt arrives with the id of the weights that drew it: TRL's loader runs one
generation batch ahead, and the feedback still credits the weights that drew the batch it scores.
After rewards are computed for a generation batch, `_calculate_rewards` turns them into per-source
mean reward, pass rate and mean |GRPO advantage| and calls `mixer.update`; reward functions never
see the two added keys. Mixer and sampler state are saved in each checkpoint (`mixer_state.pt`)
and restored on resume.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import torch
from transformers import TrainerCallback
from trl import GRPOTrainer

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
from mixer.feedback import weights_id_of
from mixer.log import logger
from mixer.policies import make_mixer
from mixer.policies.base import Mixer
from mixer.problems.scorers import ReferenceLikelihood, dataset_references
from mixer.rows import check_rows
from mixer.sampler import BatchSource, MixedSampler

__all__ = ["MixerRepeatSampler", "MixerGRPOTrainer", "MIXER_STATE_FILE"]


class MixerGRPOTrainer(GRPOTrainer):
    """`trl.GRPOTrainer` with online data mixing over the values of `source_column` in the train set.

    `mixer` is a `Mixer` or a policy name for `make_mixer` (with `mixer_kwargs`); the prompts of a
    generation batch are drawn by a `MixedSampler` over the values of `source_column`. Or pass
    `sampler=`, any `BatchSource` over the train set's rows (its `batch_size` must be
    `generation_batch_size // num_generations`; its `mixer` gets the feedback). Rewards of all
    reward functions are combined with the trainer's reward weights; a completion counts as passed
    when its reward >= `pass_threshold`. A `ProblemSampler` (e.g. `FrontierSampler`) as `sampler`
    learns each problem's rewards (`sampler.update`, which also feeds its mixer; its `reward_range`
    replaces `pass_threshold`). Resuming sets `ignore_data_skip`: the restored sampler
    already knows where the stream stands.
    """

    def __init__(
        self,
        *args: Any,
        mixer: Mixer | str = "acodm",
        source_column: str = "source",
        mixer_kwargs: dict | None = None,
        pass_threshold: float = 1.0,
        sampler: BatchSource | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.pass_threshold = float(pass_threshold)
        self.source_column = source_column
        chunk = self.args.generation_batch_size // self.num_generations
        if sampler is None:
            if self.train_dataset is None or source_column not in self.train_dataset.column_names:
                raise ValueError(
                    f"MixerGRPOTrainer needs a train_dataset with a {source_column!r} column"
                )
            labels = self.train_dataset[source_column]
            names = sorted({str(x) for x in labels})
            if isinstance(mixer, str):
                mixer = make_mixer(
                    mixer, len(names), names=names, seed=self.args.seed, **(mixer_kwargs or {})
                )
            sampler = MixedSampler.from_dataset(
                self.train_dataset, chunk, group_by=source_column, mixer=mixer, seed=self.args.seed
            )
        elif sampler.drops_groups:
            raise ValueError(
                f"{type(sampler).__name__} drops groups after rollout and needs a trainer that "
                "regenerates to refill the batch; TRL's GRPOTrainer trains on every group it "
                "generated (use FrontierSampler or ProblemSampler here)"
            )
        elif sampler.batch_size != chunk:
            raise ValueError(
                f"sampler.batch_size is {sampler.batch_size}; a generation batch holds {chunk} "
                f"prompts (generation_batch_size {self.args.generation_batch_size} / "
                f"num_generations {self.num_generations})"
            )
        if self.train_dataset is not None:
            check_rows(sampler, self.train_dataset, where="train_dataset")
        self.mixed_sampler = sampler
        self.mixer = sampler.mixer
        self.repeat_sampler: MixerRepeatSampler | None = None
        self._fed = 0
        self.args.ignore_data_skip = True
        self.add_callback(_RunStart(self))

    def mixer_updates(self, max_steps: int) -> int:
        """How many mixer updates a run of `max_steps` optimizer steps makes: one per generation
        batch, generated every `steps_per_generation * num_iterations` micro-batches."""
        micro = max_steps * self.args.gradient_accumulation_steps
        return math.ceil(micro / (self.args.steps_per_generation * self.num_iterations))

    def steps_per_generation_batch(self) -> float:
        """Optimizer steps trained on one generation batch; a checkpoint inside one cannot resume
        exactly (TRL regenerates that batch on resume and its generation schedule shifts)."""
        micro = self.args.steps_per_generation * self.num_iterations
        return micro / self.args.gradient_accumulation_steps

    def reference_scorer(
        self, reference_column: str | None = None, **kw: Any
    ) -> ReferenceLikelihood:
        """A `ReferenceLikelihood` over the model being trained, row for row of `train_dataset`,
        whose prompts are the token ids this trainer generates from (its own prompt tokenization:
        chat template, generation prompt, tools); references as `ReferenceLikelihood.from_dataset`
        reads them. Set it on the sampler: `trainer.mixed_sampler.set_scorer(trainer.reference_scorer())`."""
        if not hasattr(self, "_tokenize_prompts"):
            raise RuntimeError(
                "this TRL has no GRPOTrainer._tokenize_prompts; build the scorer with "
                "ReferenceLikelihood.from_dataset(model, tokenizer, train_dataset)"
            )
        prompts = list(self.train_dataset["prompt"])
        ids: list[list[int]] = []
        for start in range(0, len(prompts), 64):
            got = self._tokenize_prompts(prompts[start : start + 64])[0]
            ids.extend([int(t) for t in x] for x in got)
        refs = dataset_references(self.train_dataset, reference_column)
        return ReferenceLikelihood(self.model, self.processing_class, ids, refs, **kw)

    def _get_train_sampler(self, dataset: Any = None) -> MixerRepeatSampler:  # noqa: ARG002
        if self.repeat_sampler is None:
            self.repeat_sampler = MixerRepeatSampler(
                self.mixed_sampler,
                mini_repeat_count=self.num_generations,
                repeat_count=self.num_iterations * self.args.steps_per_generation,
            )
        return self.repeat_sampler

    def get_train_dataloader(self):  # noqa: ANN201
        from torch.utils.data import IterableDataset

        if isinstance(self.train_dataset, IterableDataset):
            raise ValueError("MixerGRPOTrainer draws rows by index: pass a map-style train_dataset")
        return self._get_dataloader(
            dataset=DrawnRows(self.train_dataset),
            description="Training",
            batch_size=self._train_batch_size * self.args.steps_per_generation,
            sampler_fn=self._get_train_sampler,
            is_training=True,
        )

    def _get_collator_with_removed_columns(self, data_collator, description=None):  # noqa: ANN001, ANN202
        if description == "Training":  # the rows' mixer keys must reach `_calculate_rewards`
            return data_collator
        return super()._get_collator_with_removed_columns(data_collator, description)

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):  # noqa: ANN001
        drawn = [(x.get(ROW_KEY), x.get(WEIGHTS_ID_KEY)) for x in inputs]
        inputs = [
            {k: v for k, v in x.items() if k not in (ROW_KEY, WEIGHTS_ID_KEY)} for x in inputs
        ]
        rewards_per_func = super()._calculate_rewards(
            inputs, prompts, completions, completion_ids_list
        )
        if self.model.training:
            from accelerate.utils import gather_object

            drawn = gather_object(drawn)
            if any(row is None for row, _ in drawn):
                raise RuntimeError(
                    "a training row arrived without its mixer row index: the train loader must "
                    "read rows through DrawnRows (MixerGRPOTrainer.get_train_dataloader)"
                )
            rpf = rewards_per_func.detach().float().cpu()
            w = self.reward_weights.detach().float().cpu()
            unscorable = torch.isnan(rpf).all(dim=1)
            rewards = (rpf * w.unsqueeze(0)).nansum(dim=1)
            rewards[unscorable] = float("nan")
            wid = weights_id_of(wid for _, wid in drawn[:: self.num_generations])
            self.mixed_sampler.learn(
                np.array([row for row, _ in drawn], dtype=np.int64),
                rewards.numpy(),
                weights_id=wid,
                group_size=self.num_generations,
                pass_threshold=self.pass_threshold,
            )
            self._fed += 1
            for i, name in enumerate(self.mixed_sampler.names):
                self._metrics["train"][f"mixer/weight/{name}"].append(
                    float(self.mixer.weights()[i])
                )
        return rewards_per_func

    def _save_checkpoint(self, model, trial) -> None:  # noqa: ANN001
        per = self.steps_per_generation_batch()
        if per > 1 and self.state.global_step % per:
            logger.warning(
                "MixerGRPOTrainer: checkpoint-%d falls inside a generation batch (%g optimizer "
                "steps each): a run resumed from it regenerates that batch and does not repeat "
                "the uninterrupted run's draws",
                self.state.global_step,
                per,
            )
        super()._save_checkpoint(model, trial)
        from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

        out = os.path.join(
            self._get_output_dir(trial=trial), f"{PREFIX_CHECKPOINT_DIR}-{self.state.global_step}"
        )
        if self.args.should_save:
            save_mixer_state(out, self._get_train_sampler().state_dict(consumed=self._fed))

    def _load_rng_state(self, checkpoint: str | None) -> None:
        super()._load_rng_state(checkpoint)
        state = load_mixer_state(checkpoint)
        if state is not None:
            self._get_train_sampler().load_state_dict(state)
            self._fed = int(state["drawn"])


class _RunStart(TrainerCallback):
    """At `on_train_begin`, when TRL knows the run's optimizer steps: the mixer's horizon and the
    start-up line."""

    def __init__(self, trainer: MixerGRPOTrainer) -> None:
        self.trainer = trainer

    def on_train_begin(self, args, state, control, **kwargs):  # noqa: ANN001
        steps = int(state.max_steps or 0)
        updates = self.trainer.mixer_updates(steps) if steps > 0 else None
        per = self.trainer.steps_per_generation_batch()
        if per > 1 and args.save_strategy == "steps" and args.save_steps % per:
            logger.warning(
                "MixerGRPOTrainer: save_steps=%s is not a multiple of the %g optimizer steps of a "
                "generation batch (num_iterations x steps_per_generation / gradient accumulation); "
                "a resume is exact only from checkpoints between generation batches",
                args.save_steps,
                per,
            )
        start_run(
            "MixerGRPOTrainer",
            self.trainer.mixed_sampler,
            updates,
            origin=f"TRL: {steps} optimizer steps",
        )
        return control
