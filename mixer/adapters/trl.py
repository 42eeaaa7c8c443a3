"""TRL: a GRPOTrainer whose prompts are chosen by a mixer, fed with per-source reward statistics.

`_get_train_sampler` returns a `MixerRepeatSampler` with TRL's `RepeatSampler` layout (each prompt
`num_generations` times in a row, each generation batch repeated `num_iterations *
steps_per_generation` times), the same index stream on every rank: every rank holds an identical
mixer and feeds it the rewards gathered across all ranks. The train loader reads rows through
`DrawnRows`, so each prompt arrives with the id of the weights that drew it: TRL's loader runs one
generation batch ahead, and the feedback still credits the weights that drew the batch it scores.
After rewards are computed for a generation batch, `_calculate_rewards` gives each completion's
row and combined reward, in groups of `num_generations`, to `sampler.learn`, which feeds the mixer
the per-source mean reward, pass rate, mean |GRPO advantage| and zero-advantage share (and a problem
sampler its per-problem model); reward functions never see the two added keys. Mixer and sampler state are saved in each checkpoint (`mixer_state.pt`)
and restored on resume.

The trainer's own evaluation (an `eval_dataset` and an `eval_strategy`, `eval_on_start` for the
value before training) reaches the mixer as `Feedback.eval_loss`, the held-out loss its critic
learns from (`acodm-residual`, the default of `FrontierSampler`): each `evaluate` turns TRL's
metrics into one loss (`reward_eval_loss`, or the user's `eval_loss_fn`), which goes to
`sampler.learn` with the next generation batch (`feed_eval=False`: never); the value waiting is
saved in each checkpoint with the sampler's state.

Samplers that drop groups after rollout (`DynamicSampling`, `PassRateBand`, `GRESO`) are refilled:
`_generate_and_score_completions` generates and grades the loader's generation batch, then draws
more batches from the sampler (each credited to its own weights) until the informative groups fill
one generation batch or `refill_rounds` rounds were generated, and returns the chosen groups' rows
as one generation batch (`_RefillRows`); what every round cost is counted and logged per step.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
    _reward_as_loss,
    _reward_range_of,
    _takes_eval_loss,
    load_mixer_state,
    save_mixer_state,
    start_run,
)
from mixer.feedback import weights_id_of
from mixer.log import logger
from mixer.policies import make_mixer
from mixer.policies.base import Mixer
from mixer.problems.base import group_rewards
from mixer.problems.scorers import ReferenceLikelihood, dataset_references
from mixer.rows import check_rows
from mixer.sampler import BatchSource, DrawnIndex, MixedSampler

__all__ = [
    "MixerRepeatSampler",
    "MixerGRPOTrainer",
    "MIXER_STATE_FILE",
    "REFILL_FALLBACKS",
    "ROLLOUT_COUNTS",
    "SKIP_KEY",
    "EMPTY_KEY",
    "EVAL_REWARD_KEY",
    "TESTED_TRL",
    "TRL_CALLS",
    "TRL_OVERRIDES",
    "check_trl_seams",
    "reward_eval_loss",
]

#: What a generation batch trains on when `refill_rounds` rounds did not fill it with informative
#: groups: "train" on the informative groups it has (the empty places hold dropped groups whose
#: loss is masked out), or "skip" it (no gradient from it).
REFILL_FALLBACKS = ("train", "skip")

#: The key a skipped generation batch carries to `compute_loss` (a 0-d tensor survives TRL's
#: shuffling and splitting of the buffered batch).
SKIP_KEY = "mixer_skip"

#: The key a generation batch that trains no row carries to `compute_loss` (fallback "train"
#: with no informative group): an optimizer step made only of such batches (and skipped ones)
#: does not step the optimizer.
EMPTY_KEY = "mixer_empty"

#: The TRL releases this adapter was tested with (pyproject's `trl` extra accepts these only).
TESTED_TRL = "1.16"

#: The private methods of TRL's `GRPOTrainer` (and of the transformers `Trainer` under it) that
#: `MixerGRPOTrainer` overrides, with their parameters as TRL 1.16.0 and transformers 5.25.0 have
#: them: a release that changes one is refused at construction, naming it (`check_trl_seams`).
TRL_OVERRIDES: dict[str, tuple[str, ...]] = {
    "_get_train_sampler": ("dataset",),
    "_get_collator_with_removed_columns": ("data_collator", "description"),
    "_calculate_rewards": ("inputs", "prompts", "completions", "completion_ids_list"),
    "_generate_and_score_completions": ("inputs",),
    "_save_checkpoint": ("model", "trial"),
    "_load_rng_state": ("checkpoint",),
    "get_batch_samples": ("epoch_iterator", "num_batches", "device"),
    "compute_loss": ("model", "inputs", "return_outputs", "num_items_in_batch"),
}

#: The private methods it calls, with the parameters it passes (others must have defaults).
TRL_CALLS: dict[str, tuple[str, ...]] = {
    "_get_dataloader": ("dataset", "description", "batch_size", "sampler_fn", "is_training"),
    "_tokenize_prompts": ("prompts",),
    "_get_output_dir": ("trial",),
}


def check_trl_seams(trainer_class: Any = GRPOTrainer) -> list[str]:
    """What `trainer_class` (TRL's `GRPOTrainer`) changed of the methods this adapter overrides
    (`TRL_OVERRIDES`: the same parameters, in order) or calls (`TRL_CALLS`: those parameters
    first, any more with defaults): one line per method, empty when all are as tested."""
    import inspect

    problems = []
    for table, exact in ((TRL_OVERRIDES, True), (TRL_CALLS, False)):
        for name, want in table.items():
            method = getattr(trainer_class, name, None)
            if method is None:
                problems.append(f"{name} is gone")
                continue
            params = list(inspect.signature(method).parameters.values())[1:]  # less self
            got = tuple(p.name for p in params)
            extra = params[len(want) :]
            if got[: len(want)] != want or (
                extra and (exact or any(p.default is inspect.Parameter.empty for p in extra))
            ):
                problems.append(f"{name}({', '.join(got)}) (tested: {name}({', '.join(want)}))")
    return problems


#: The metric of TRL's evaluation that `reward_eval_loss` reads: the mean over the eval set of the
#: reward functions' weighted sum (`GRPOTrainer` logs it as `reward`, "eval_" prefixed in eval).
EVAL_REWARD_KEY = "eval_reward"


def reward_eval_loss(
    metrics: Mapping[str, Any], reward_range: tuple[float, float] = (0.0, 1.0)
) -> float | None:
    """The default held-out loss of one TRL evaluation: its mean reward r (`eval_reward`) as
    (high - r) / (high - low) over `reward_range` (0 when every eval completion gets the top
    reward, 1 when every one gets the bottom); None when the evaluation has no finite reward."""
    r = metrics.get(EVAL_REWARD_KEY)
    if r is None or not math.isfinite(float(r)):
        return None
    return _reward_as_loss(float(r), reward_range)


#: How the mixer's `horizon_origin` starts when this trainer set the run's length.
_HORIZON_ORIGIN = "TRL"

#: The run-long counts of `MixerGRPOTrainer.rollouts` (saved in each checkpoint).
ROLLOUT_COUNTS = (
    "generation_batches",  # generation batches trained (or skipped)
    "rounds",  # generation rounds (the loader's batch and every refill)
    "rollouts",  # completions generated and graded
    "trained_rollouts",  # completions in the groups trained on
    "groups",  # groups generated
    "groups_dropped",  # groups the sampler dropped after rollout
    "groups_surplus",  # informative groups beyond a full batch (generated, not trained)
    "groups_padded",  # places of a short batch filled with masked rows (fallback "train")
    "short_batches",  # generation batches that reached refill_rounds without filling
    "skipped_batches",  # of these, skipped (fallback "skip")
    "empty_batches",  # generation batches in which no round kept a group
    "empty_streak",  # such batches in a row, up to the latest
    "round_limit",  # the rounds the next generation batch may take (the back-off)
)


@dataclass
class _Heard:
    """One generation round as the sampler heard it, in the order of the rows gathered across ranks
    (group g is rows g*G .. g*G+G-1)."""

    keep_group: np.ndarray  # bool per group: the sampler keeps it
    zero_advantage: np.ndarray  # bool per group: all rewards equal (or fewer than two)
    sources: np.ndarray  # source id per group
    mean_reward: np.ndarray  # mean combined reward per group (NaN where none was scorable)


class MixerGRPOTrainer(GRPOTrainer):
    """`trl.GRPOTrainer` with online data mixing over the values of `source_column` in the train set.

    `mixer` is a `Mixer` or a policy name for `make_mixer` (with `mixer_kwargs`); the prompts of a
    generation batch are drawn by a `MixedSampler` over the values of `source_column`. Or pass
    `sampler=`, any `BatchSource` over the train set's rows (its `batch_size` must be
    `generation_batch_size // num_generations`; its `mixer` gets the feedback). Rewards of all
    reward functions are combined with the trainer's reward weights; a completion counts as passed
    when its reward >= `pass_threshold`. A `ProblemSampler` (e.g. `FrontierSampler`) as `sampler`
    learns each problem's rewards (`sampler.learn`, which also feeds its mixer; its `reward_range`
    replaces `pass_threshold`). Resuming sets `ignore_data_skip`: the restored sampler
    already knows where the stream stands.

    A sampler that drops groups after rollout (`drops_groups`: `DynamicSampling`, `PassRateBand`,
    `GRESO`) is refilled: after the loader's generation batch, more batches are drawn from the
    sampler, generated and graded until the kept groups fill one generation batch or
    `refill_rounds` rounds (the first included) were generated; the sampler hears every round,
    credited to the weights that drew it. A batch still short then follows `refill_fallback`
    (`REFILL_FALLBACKS`). `rollouts` counts what every generation batch cost.

    With an `eval_dataset` and an `eval_strategy` (and `eval_on_start=True` for the value before
    training), each evaluation's metrics become one held-out loss, `eval_loss_fn(metrics)` (a
    float, or None for none; default `reward_eval_loss` over the sampler's `reward_range`, (0, 1)
    for a sampler without one), given to `sampler.learn` as `eval_loss=` with the next generation
    batch, so the mixer's critic learns from it (`Feedback.eval_loss`). With several eval datasets
    it is called once per dataset and the losses are averaged; when two evaluations come before
    the next batch, the later one is fed. `feed_eval=False` feeds nothing. The value waiting for
    the next batch is saved in each checkpoint (`mixer_state.pt`) and restored on resume.
    """

    def __init__(
        self,
        *args: Any,
        mixer: Mixer | str = "acodm",
        source_column: str = "source",
        mixer_kwargs: dict | None = None,
        pass_threshold: float = 1.0,
        sampler: BatchSource | None = None,
        refill_rounds: int = 10,
        refill_fallback: str = "train",
        refill_backoff: bool = True,
        feed_eval: bool = True,
        eval_loss_fn: Callable[[dict[str, Any]], float | None] | None = None,
        **kwargs: Any,
    ) -> None:
        changed = check_trl_seams(GRPOTrainer)
        if changed:
            import trl

            raise RuntimeError(
                f"MixerGRPOTrainer overrides private methods of TRL's GRPOTrainer and was tested "
                f"with TRL {TESTED_TRL} (this is {trl.__version__}); these changed: "
                f"{'; '.join(changed)}. Install trl=={TESTED_TRL}.* (pip install 'codemix[trl]')"
            )
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
        elif sampler.batch_size != chunk:
            raise ValueError(
                f"sampler.batch_size is {sampler.batch_size}; a generation batch holds {chunk} "
                f"prompts (generation_batch_size {self.args.generation_batch_size} / "
                f"num_generations {self.num_generations})"
            )
        if int(refill_rounds) < 1:
            raise ValueError(
                f"refill_rounds must be >= 1 (the first round included), got {refill_rounds}"
            )
        if refill_fallback not in REFILL_FALLBACKS:
            raise ValueError(
                f"refill_fallback must be one of {REFILL_FALLBACKS}, got {refill_fallback!r}"
            )
        if eval_loss_fn is not None and not feed_eval:
            raise ValueError(
                "eval_loss_fn is given but feed_eval=False: the mixer would not hear it"
            )
        self.refill_rounds = int(refill_rounds)
        self.refill_fallback = refill_fallback
        self.refill_backoff = bool(refill_backoff)
        if sampler.drops_groups:
            self._check_refill(type(sampler).__name__)
        if self.train_dataset is not None:
            check_rows(sampler, self.train_dataset, where="train_dataset")
        self.mixed_sampler = sampler
        self.mixer = sampler.mixer
        self.feed_eval = bool(feed_eval)
        self.eval_loss_fn = eval_loss_fn
        if self.feed_eval and not _takes_eval_loss(sampler.learn):
            self.feed_eval = False
            if self.eval_dataset is not None:
                logger.warning(
                    "MixerGRPOTrainer: %s.learn takes no eval_loss=, so the trainer's evaluation "
                    "will not reach its mixer (feed_eval off)",
                    type(sampler).__name__,
                )
        #: the held-out loss of the latest evaluation, for the next generation batch's `learn`
        self.eval_pending: float | None = None
        self._eval_parts: list[dict] | None = None  # metrics of an evaluation's datasets
        self._eval_unread = False  # warned that an evaluation gave no loss
        self.repeat_sampler: MixerRepeatSampler | None = None
        self.rollouts: dict[str, int] = dict.fromkeys(ROLLOUT_COUNTS, 0)
        self.rollouts["round_limit"] = self.refill_rounds
        self._trained_micro = 0  # micro-batches with rows to train since the last optimizer step
        self._fed = 0
        self._heard: _Heard | None = None
        self._batches_in_run: int | None = None  # generation batches (set at the run's start)
        self._rng_resync: str | None = None  # a checkpoint whose random state is restored again
        self.args.ignore_data_skip = True
        self.add_callback(_RunStart(self))
        self.add_callback(_NoEmptyStep(self))

    def _check_refill(self, name: str) -> None:
        """Refuse the settings under which a refilled batch would not train what its groups say."""
        why = []
        if self.scale_rewards == "batch":
            why.append(
                "scale_rewards='batch' (each round's advantages would be scaled by that round)"
            )
        if self.multi_objective_aggregation != "sum_then_normalize":
            why.append(
                f"multi_objective_aggregation={self.multi_objective_aggregation!r} (normalised over each round)"
            )
        generate_every = self.args.steps_per_generation * self.num_iterations
        if (
            self.refill_fallback == "skip"
            and self.accelerator.num_processes > 1
            and generate_every % self.args.gradient_accumulation_steps
        ):
            why.append(
                "refill_fallback='skip' on several processes with generation batches that share an "
                "optimizer step (steps_per_generation x num_iterations not a multiple of "
                "gradient_accumulation_steps)"
            )
        if why:
            raise ValueError(
                f"{name} drops groups after rollout and MixerGRPOTrainer refills its batch from "
                f"several generation rounds; that cannot be done with {'; '.join(why)}"
            )

    def mixer_updates(self, max_steps: int) -> int:
        """How many generation batches a run of `max_steps` optimizer steps trains, one every
        `steps_per_generation * num_iterations` micro-batches: the mixer's updates, one per batch,
        for a sampler that keeps every group. A sampler that drops groups makes one update per
        round, at least this many; the trainer re-tells the mixer that count as the run goes
        (`_retell_horizon`)."""
        micro = max_steps * self.args.gradient_accumulation_steps
        return math.ceil(micro / (self.args.steps_per_generation * self.num_iterations))

    def _retell_horizon(self) -> None:
        """Under refill the mixer updates once per round and a run's rounds are known only as it
        goes: after each generation batch, tell a mixer whose horizon this trainer set (not one
        given by the user, not one fixed at the start) the rounds so far plus the batches left at
        the rounds per batch so far. After the last batch that is the run's update count."""
        m, n = self.mixer, self.rollouts
        batches = self._batches_in_run
        if (
            batches is None
            or not self.mixed_sampler.drops_groups
            or not getattr(m, "horizon_can_change", False)
            or not str(getattr(m, "horizon_origin", "")).startswith(_HORIZON_ORIGIN)
            or not n["generation_batches"]
        ):
            return
        left = max(batches - n["generation_batches"], 0)
        per = n["rounds"] / n["generation_batches"]
        rounds = n["rounds"] + int(round(left * per))
        if rounds != getattr(m, "horizon", None):
            m.set_horizon(rounds, origin=f"{_HORIZON_ORIGIN}: refill, {per:.2f} rounds a batch")

    def steps_per_generation_batch(self) -> float:
        """Optimizer steps trained on one generation batch; a checkpoint inside one cannot resume
        exactly (TRL regenerates that batch on resume and its generation schedule shifts)."""
        micro = self.args.steps_per_generation * self.num_iterations
        return micro / self.args.gradient_accumulation_steps

    def rollout_summary(self) -> str:
        """One line: what the run generated, what it trained on, and what the filter cost."""
        n = self.rollouts
        untrained = n["rollouts"] - n["trained_rollouts"]
        share = untrained / n["rollouts"] if n["rollouts"] else 0.0
        g = self.num_generations
        line = (
            f"{n['rollouts']} rollouts generated in {n['generation_batches']} generation batches "
            f"({n['rounds']} rounds), {n['trained_rollouts']} trained; the filter cost "
            f"{untrained} ({share:.0%}): {n['groups_dropped'] * g} in dropped groups, "
            f"{n['groups_surplus'] * g} surplus"
        )
        if n["short_batches"]:
            line += (
                f"; {n['short_batches']} batches reached refill_rounds={self.refill_rounds} "
                f"({n['skipped_batches']} skipped, {n['groups_padded']} places masked)"
            )
        if n["empty_batches"]:
            line += f"; {n['empty_batches']} batches kept no group (they trained nothing)"
        return line

    # ---- the trainer's evaluation ---------------------------------------------------------
    def evaluate(self, *args: Any, **kwargs: Any) -> dict[str, float]:
        """`Trainer.evaluate`; then the evaluation's held-out loss waits for the next generation
        batch's `sampler.learn` (`eval_pending`; see the class docstring)."""
        outer = self._eval_parts is None
        if outer:
            self._eval_parts = []
        try:
            metrics = super().evaluate(*args, **kwargs)
            chosen = kwargs.get("eval_dataset", args[0] if args else None)
            if chosen is None:
                chosen = self.eval_dataset
            if not isinstance(chosen, dict) and self._eval_parts is not None:
                self._eval_parts.append(dict(metrics))  # one dataset's (TRL's keys unprefixed)
        finally:
            parts = self._eval_parts or []
            if outer:
                self._eval_parts = None
        if outer:
            self._heard_evaluation(parts)
        return metrics

    def eval_loss_of(self, metrics: Mapping[str, Any]) -> float | None:
        """The held-out loss of one evaluation's `metrics`: `eval_loss_fn`'s, or `reward_eval_loss`
        over the sampler's `reward_range` ((0, 1) when it has none)."""
        if self.eval_loss_fn is not None:
            got = self.eval_loss_fn(dict(metrics))
            return None if got is None else float(got)
        return reward_eval_loss(metrics, _reward_range_of(self.mixed_sampler))

    def _heard_evaluation(self, parts: list[dict]) -> None:
        if not self.feed_eval:
            return
        losses = [self.eval_loss_of(m) for m in parts]
        finite = [x for x in losses if x is not None and math.isfinite(x)]
        if finite:
            self.eval_pending = float(np.mean(finite))
        elif parts and not self._eval_unread:
            self._eval_unread = True
            logger.warning(
                "MixerGRPOTrainer: an evaluation gave the mixer no held-out loss (%s); its "
                "metrics: %s",
                "eval_loss_fn returned None"
                if self.eval_loss_fn is not None
                else f"no finite {EVAL_REWARD_KEY}",
                ", ".join(sorted(parts[0])),
            )

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
            rows = np.array([row for row, _ in drawn], dtype=np.int64)
            wid = weights_id_of(wid for _, wid in drawn[:: self.num_generations])
            held_out: dict[str, Any] = {}
            if self.eval_pending is not None:  # the latest evaluation, heard once
                held_out["eval_loss"] = self.eval_pending
                self._metrics["train"]["mixer/eval_loss"].append(self.eval_pending)
                self.eval_pending = None
            out = self.mixed_sampler.learn(
                rows,
                rewards.numpy(),
                weights_id=wid,
                group_size=self.num_generations,
                pass_threshold=self.pass_threshold,
                **held_out,
            )
            self._heard = self._heard_of(out, rows, rewards.numpy())
            for i, name in enumerate(self.mixed_sampler.names):
                self._metrics["train"][f"mixer/weight/{name}"].append(
                    float(self.mixer.weights()[i])
                )
        return rewards_per_func

    def _heard_of(self, out: Any, rows: np.ndarray, rewards: np.ndarray) -> _Heard:
        """The groups of one round: what `learn` returned (a `GroupOutcome`), or, for a source that
        keeps every group and returns nothing, its groups read from the rewards."""
        g = self.num_generations
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a group with no scorable reward
            mean = np.nanmean(rewards.reshape(-1, g), axis=1)
        if hasattr(out, "keep_group"):
            return _Heard(
                np.asarray(out.keep_group, dtype=bool),
                np.asarray(out.zero_advantage, dtype=bool),
                np.asarray(out.sources, dtype=np.int64),
                mean,
            )
        if self.mixed_sampler.drops_groups:
            raise RuntimeError(
                f"{type(self.mixed_sampler).__name__}.learn returned no keep_group, though the "
                "sampler drops groups"
            )
        zero = group_rewards(rows, rewards, np.arange(rows.size) // g)[3]
        return _Heard(
            np.ones(rows.size // g, dtype=bool), zero, self.mixed_sampler.source_of(rows[::g]), mean
        )

    # ---- refill -----------------------------------------------------------------------------
    def _generate_and_score_completions(self, inputs):  # noqa: ANN001, ANN202
        if not self.model.training:
            return super()._generate_and_score_completions(inputs)
        rounds = [(super()._generate_and_score_completions(inputs), self._heard)]
        self._fed += 1  # one chunk of the repeat sampler's stream consumed
        prompts = self.args.generation_batch_size // self.num_generations
        while (
            self.mixed_sampler.drops_groups
            and sum(int(h.keep_group.sum()) for _, h in rounds) < prompts
            and len(rounds) < self.rollouts["round_limit"]
        ):
            more = self._drawn_inputs(len(inputs))
            rounds.append((super()._generate_and_score_completions(more), self._heard))
        batch = self._assemble(rounds)
        self._back_off([h for _, h in rounds])
        self._retell_horizon()
        return batch

    def _back_off(self, heard: list[_Heard]) -> None:
        """After a generation batch in which no round kept a group: warn, naming what the groups'
        rewards were (at the first such batch in a row, then the 2nd, 4th, 8th, ...), and with
        `refill_backoff` halve the rounds the next batch may take (down to one); a batch that keeps
        a group restores `refill_rounds`."""
        n = self.rollouts
        if not self.mixed_sampler.drops_groups:
            return
        if any(h.keep_group.any() for h in heard):
            n["empty_streak"], n["round_limit"] = 0, self.refill_rounds
            return
        n["empty_batches"] += 1
        n["empty_streak"] += 1
        limit = max(1, n["round_limit"] // 2) if self.refill_backoff else self.refill_rounds
        streak = n["empty_streak"]
        if streak & (streak - 1) == 0:  # 1, 2, 4, 8, ...
            zero = np.concatenate([h.zero_advantage for h in heard])
            passed = np.concatenate([h.mean_reward for h in heard]) >= self.pass_threshold
            logger.warning(
                "MixerGRPOTrainer: %d generation batch(es) in a row kept no group: %s dropped all "
                "%d groups of the batch's %d round(s), %d of them with equal rewards (%d all "
                "passed, %d all below pass_threshold=%g): the problems drawn are too easy or too "
                "hard for the policy, or the reward does not vary. %s",
                streak,
                type(self.mixed_sampler).__name__,
                zero.size,
                len(heard),
                int(zero.sum()),
                int((zero & passed).sum()),
                int((zero & ~passed).sum()),
                self.pass_threshold,
                f"The next batch may take {limit} round(s) (refill_backoff; a batch that keeps "
                f"a group restores refill_rounds={self.refill_rounds})"
                if self.refill_backoff
                else f"Each such batch costs refill_rounds={self.refill_rounds} rounds",
            )
        n["round_limit"] = limit

    def _drawn_inputs(self, local: int) -> list[dict]:
        """One more generation batch from the sampler, this rank's rows of it, as the loader gives
        them (each prompt `num_generations` times in a row, ranks in order, rows tagged with their
        index and the weights id that drew them)."""
        idx = self.mixed_sampler.next_batch()
        wid = self.mixed_sampler.last_weights_id
        start = self.accelerator.process_index * local
        rows = DrawnRows(self.train_dataset)
        g = self.num_generations
        return [rows[DrawnIndex(idx[j // g], wid)] for j in range(start, start + local)]

    def _assemble(self, rounds: list[tuple[dict, _Heard]]) -> dict:
        """The generation batch to train on: the first kept groups of the rounds in order, as many
        as one generation batch holds (short: `refill_fallback`), each rank its share of rows."""
        prompts = self.args.generation_batch_size // self.num_generations
        heard = [h for _, h in rounds]
        kept = [(r, int(g)) for r, h in enumerate(heard) for g in np.flatnonzero(h.keep_group)]
        chosen = kept[:prompts]
        masked_from = prompts  # places from here on hold masked rows
        skip = False
        if len(chosen) < prompts:
            dropped = [
                (r, int(g)) for r, h in enumerate(heard) for g in np.flatnonzero(~h.keep_group)
            ]
            skip = self.refill_fallback == "skip"
            masked_from = 0 if skip else len(chosen)
            chosen = (chosen + dropped)[:prompts]
        self._count(heard, len(kept), masked_from, skip)
        if len(rounds) == 1 and masked_from == prompts:
            return rounds[0][0]  # the loader's batch, every group kept
        refill = _RefillRows(self, [out for out, _ in rounds])
        batch = refill.take(chosen)
        refill.mask(batch, masked_from)
        if skip:
            batch[SKIP_KEY] = torch.tensor(True)
        elif masked_from == 0:  # "train" with no kept group: every place masked, nothing to train
            batch[EMPTY_KEY] = torch.tensor(True)
        return batch

    def _count(self, heard: list[_Heard], kept: int, masked_from: int, skip: bool) -> None:
        """Add one generation batch to `rollouts` and log its counts (`mixer/...`: totals over the
        generation batches since the last log, however many make an optimizer step), with the
        run's totals as they stand (`mixer/total/...`)."""
        prompts = self.args.generation_batch_size // self.num_generations
        g = self.num_generations
        groups = sum(len(h.keep_group) for h in heard)
        step = {
            "rounds": len(heard),
            "rollouts": groups * g,
            "groups": groups,
            "groups_dropped": groups - kept,
            "groups_surplus": max(0, kept - prompts),
            "groups_padded": 0 if skip else prompts - masked_from,
        }
        trained = 0 if skip else min(kept, prompts) * g
        n = self.rollouts
        for k, v in step.items():
            n[k] += v
        n["generation_batches"] += 1
        n["trained_rollouts"] += trained
        n["short_batches"] += int(masked_from < prompts)
        n["skipped_batches"] += int(skip)
        m = self._metrics["train"]
        step["groups_kept"], step["trained_rollouts"] = kept, trained
        for k in (
            "rounds", "rollouts", "groups_kept", "groups_dropped", "groups_surplus",
            "groups_padded", "trained_rollouts",
        ):  # fmt: skip
            # one value, the window's total: TRL logs the mean of a metric's list
            m[f"mixer/{k}"] = [sum(m[f"mixer/{k}"]) + float(step[k])]
        sources = np.concatenate([h.sources for h in heard])
        zero = np.concatenate([h.zero_advantage for h in heard])
        for s, name in enumerate(self.mixed_sampler.names):
            here = sources == s
            if here.any():
                m[f"mixer/zero_advantage/{name}"].append(float(zero[here].mean()))
        for k in ("rollouts", "trained_rollouts"):  # one value: the log shows the latest total
            m[f"mixer/total/{k}"] = [float(n[k])]
        m["mixer/total/untrained_rollouts"] = [float(n["rollouts"] - n["trained_rollouts"])]

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):  # noqa: ANN001, ANN201
        if SKIP_KEY in inputs:  # a skipped generation batch: no forward, no gradient
            return torch.zeros((), device=self.accelerator.device, requires_grad=True)
        if EMPTY_KEY in inputs:  # every row masked: the forward runs (the ranks' gradients are
            # reduced together), and `_NoEmptyStep` keeps the optimizer from stepping on it
            inputs = {k: v for k, v in inputs.items() if k != EMPTY_KEY}
        else:
            self._trained_micro += 1
        return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)

    # ---- checkpoints ------------------------------------------------------------------------
    def get_batch_samples(self, epoch_iterator, num_batches, device):  # noqa: ANN001, ANN201
        got = super().get_batch_samples(epoch_iterator, num_batches, device)
        if self._rng_resync is not None:  # the resumed run's first fetch: see `_load_rng_state`
            checkpoint, self._rng_resync = self._rng_resync, None
            super()._load_rng_state(checkpoint)
        return got

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
            state = self._get_train_sampler().state_dict(consumed=self._fed)
            save_mixer_state(
                out,
                {**state, "rollouts": dict(self.rollouts), "eval_pending": self.eval_pending},
            )

    def _load_rng_state(self, checkpoint: str | None) -> None:
        super()._load_rng_state(checkpoint)
        # Under `ignore_data_skip` transformers restores the random state before it creates the
        # train loader's iterator, and creating that iterator draws a seed from torch's generator:
        # generation after a resume would be shifted by that draw. The state is restored once more
        # after the first batches are fetched (`get_batch_samples`), before anything generates,
        # as transformers itself does on its data-skipping path.
        self._rng_resync = checkpoint
        state = load_mixer_state(checkpoint)
        if state is not None:
            self._get_train_sampler().load_state_dict(state)
            self._fed = int(state["drawn"])
            saved = state.get("rollouts") or {}
            fresh = dict.fromkeys(ROLLOUT_COUNTS, 0) | {"round_limit": self.refill_rounds}
            self.rollouts = {k: int(saved.get(k, fresh[k])) for k in ROLLOUT_COUNTS}
            if "eval_pending" in state:  # as the uninterrupted run has it (an evaluation at
                # the start of the resumed run, `eval_on_start`, is replaced by it)
                got = state["eval_pending"]
                self.eval_pending = None if got is None else float(got)


class _RefillRows:
    """The rows of several generation rounds (TRL's generation-batch dicts, this rank's rows of
    each) cut and joined into one generation batch.

    What it relies on in TRL's dict: per-row tensors whose second dimension is a padded length,
    the prompt's padded on the left, the completion's on the right (`_LEFT`, `_RIGHT`, with their
    pad values), per-row `advantages`, and `num_items_in_batch` (the loss mask's tokens over all
    ranks, recomputed here). Rows are joined at the widest round's width. Any other key (images)
    is refused. With several processes the chosen rows are exchanged (`gather_object`, on CPU).
    """

    _LEFT = {"prompt_ids": None, "prompt_mask": 0}  # None: the tokenizer's pad id
    _RIGHT = {
        "completion_ids": None,
        "completion_mask": 0,
        "tool_mask": 1,
        "old_per_token_logps": 0.0,
        "ref_per_token_logps": 0.0,
        "sampling_per_token_logps": 0.0,
        "importance_sampling_ratio": 1.0,
    }
    _ROW = ("advantages",)

    def __init__(self, trainer: MixerGRPOTrainer, rounds: list[dict]) -> None:
        known = {*self._LEFT, *self._RIGHT, *self._ROW, "num_items_in_batch"}
        other = sorted({k for out in rounds for k in out} - known)
        if other:
            raise RuntimeError(
                f"the generation batch holds {other}: MixerGRPOTrainer refills text-only "
                "generation batches; use a sampler that keeps every group"
            )
        self.trainer, self.rounds = trainer, rounds
        self.local = len(rounds[0]["advantages"])
        acc = trainer.accelerator
        self.rank, self.world, self.device = acc.process_index, acc.num_processes, acc.device

    def take(self, chosen: list[tuple[int, int]]) -> dict:
        """This rank's rows of the batch made of the `chosen` (round, group) pairs in order."""
        g, lo = self.trainer.num_generations, self.rank * self.local
        mine: dict[int, list[tuple[int, int]]] = {}  # round -> (place in the batch, local row)
        for j, (r, group) in enumerate(chosen):
            for k in range(g):
                row = group * g + k
                if lo <= row < lo + self.local:
                    mine.setdefault(r, []).append((j * g + k, row - lo))
        pieces = []
        for r, pairs in mine.items():
            idx = torch.tensor([i for _, i in pairs], dtype=torch.long, device=self.device)
            rows = {k: v.index_select(0, idx) for k, v in self.rounds[r].items() if v.dim() > 0}
            if self.world > 1:
                rows = {k: v.cpu() for k, v in rows.items()}
            pieces.append(([p for p, _ in pairs], rows))
        if self.world > 1:
            from accelerate.utils import gather_object

            pieces = gather_object(pieces)
        places = torch.tensor([p for ps, _ in pieces for p in ps])
        order = torch.argsort(places)[lo : lo + self.local]  # the places of this rank, in order
        joined = self._join([rows for _, rows in pieces])
        return {k: v[order.to(v.device)].to(self.device) for k, v in joined.items()}

    def _join(self, pieces: list[dict]) -> dict:
        pad_id = self.trainer._tokenizer.pad_token_id
        out = {}
        for key in pieces[0]:
            parts = [p[key] for p in pieces]
            side = self._LEFT if key in self._LEFT else self._RIGHT if key in self._RIGHT else None
            if side is not None:
                width = max(t.shape[1] for t in parts)
                value = pad_id if side[key] is None else side[key]
                parts = [
                    torch.nn.functional.pad(
                        t,
                        (width - t.shape[1], 0) if side is self._LEFT else (0, width - t.shape[1]),
                        value=value,
                    )
                    for t in parts
                ]
            out[key] = torch.cat(parts)
        return out

    def mask(self, batch: dict, masked_from: int) -> None:
        """Mask the loss of the rows in places `masked_from` onwards (a short batch's filler) and
        count the batch's loss tokens over all ranks as TRL does (`num_items_in_batch`)."""
        g, lo = self.trainer.num_generations, self.rank * self.local
        place = torch.arange(lo, lo + self.local, device=self.device)
        filler = place >= masked_from * g
        if filler.any():
            batch["completion_mask"] = batch["completion_mask"].masked_fill(filler[:, None], 0)
            batch["advantages"] = batch["advantages"].masked_fill(filler, 0.0)
        loss_mask = batch["completion_mask"]
        if "tool_mask" in batch:
            loss_mask = loss_mask * batch["tool_mask"]
        batch["num_items_in_batch"] = self.trainer.accelerator.gather(loss_mask.sum()).sum()


class _NoEmptyStep(TrainerCallback):
    """An optimizer step whose micro-batches trained no row (generation batches skipped, or with
    every place masked under fallback "train") does not step the optimizer: the gradients, all
    zero or absent, are cleared before it, so the optimizer skips every parameter (AdamW: no
    moment decays, no weight moves, its step count stays). The learning-rate schedule advances as
    for any step. The decision is the same on every rank (every rank hears the same rounds)."""

    def __init__(self, trainer: MixerGRPOTrainer) -> None:
        self.trainer = trainer

    def on_pre_optimizer_step(self, args, state, control, **kwargs):  # noqa: ANN001, ARG002
        if self.trainer._trained_micro == 0:
            for p in self.trainer.model.parameters():
                p.grad = None
        return control

    def on_step_begin(self, args, state, control, **kwargs):  # noqa: ANN001, ARG002
        self.trainer._trained_micro = 0  # (an evaluation between steps counts nothing)
        return control


class _RunStart(TrainerCallback):
    """At `on_train_begin`, when TRL knows the run's optimizer steps: the mixer's horizon and the
    start-up line; at `on_train_end`, what the run's rollouts were spent on."""

    def __init__(self, trainer: MixerGRPOTrainer) -> None:
        self.trainer = trainer

    def on_train_begin(self, args, state, control, **kwargs):  # noqa: ANN001
        steps = int(state.max_steps or 0)
        updates = self.trainer.mixer_updates(steps) if steps > 0 else None
        self.trainer._batches_in_run = updates
        origin = f"{_HORIZON_ORIGIN}: {steps} optimizer steps"
        if self.trainer.mixed_sampler.drops_groups:
            origin += ", one round a batch until the rounds are counted"
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
            origin=origin,
        )
        m = self.trainer.mixer
        if (
            self.trainer.mixed_sampler.drops_groups
            and not getattr(m, "horizon_can_change", True)
            and str(getattr(m, "horizon_origin", "")).startswith(_HORIZON_ORIGIN)
        ):
            logger.warning(
                "MixerGRPOTrainer: %s fixes its horizon at the run's start (%s updates, one a "
                "generation batch), and under refill it updates once per round, more often: pass "
                "horizon=<the rounds you expect> to it",
                m.name,
                updates,
            )
        return control

    def on_train_end(self, args, state, control, **kwargs):  # noqa: ANN001, ARG002
        logger.info("MixerGRPOTrainer: %s", self.trainer.rollout_summary())
        return control
