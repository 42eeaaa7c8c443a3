"""verl 0.8+/0.9 entry point: `python -m mixer.adapters.verl_main` with `verl.trainer.main_ppo`'s overrides.

verl 0.9 has no sampler setting: `data.sampler.class_path` is not in its config and, added with
`+`, is ignored. This entry point runs verl's own `main_ppo` flow with the mixer choosing the
prompts, for both trainers:

- legacy (`trainer.use_v1=false`): verl's `TaskRunner.run`, with `create_rl_sampler` returning a
  `MixerCurriculumSampler` and the trainer built from `mixer_trainer_class(RayPPOTrainer)` (it
  feeds the mixer after the advantages and checkpoints it);
- v1 (`trainer.use_v1=true`, the default; `trainer.v1.trainer_mode=sync` only): verl's
  `TaskRunnerV1.run` with `MixerPPOTrainerSync`, whose train dataloader draws with the mixer and
  whose `_compute_advantage` feeds it.

Rows are read through `MixerRLHFDataset` (set as `data.custom_cls` unless you set one), so each
batch carries the id of the weights that drew it. Mixer options: `+data.sampler.mixer=acodm`,
`+data.sampler.source_key=data_source`, `+data.sampler.pass_threshold=1.0`,
`+data.sampler.mixer_kwargs={...}`. A configuration that would not mix is refused with one line.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
from collections.abc import Iterator
from typing import Any

try:
    import ray
    from omegaconf import DictConfig, OmegaConf, open_dict
    from torchdata.stateful_dataloader import StatefulDataLoader
    from verl.trainer import main_ppo, main_ppo_v0
    from verl.trainer.ppo.ray_trainer import RayPPOTrainer
except ImportError as e:  # run without verl: one line naming what to install, no traceback
    if __name__ != "__main__":
        raise
    print(f"error: python -m mixer.adapters.verl_main needs verl 0.9 (no module {e.name!r}): "
          "pip install verl cachetools uvicorn fastapi TransferQueue (docs/mixer.md, verl)", file=sys.stderr)
    raise SystemExit(2) from None

from mixer.adapters.verl import (
    MixerCurriculumSampler,
    _checkpoint_dir,
    load_sampler_learning,
    mixer_trainer_class,
    rows_of_tensordict,
    save_sampler_learning,
)

__all__ = [
    "ConfigError",
    "MIXER_V1_MODE",
    "MixerTaskRunner",
    "MixerTaskRunnerV1",
    "check_config",
    "main",
    "mixer_sampler",
    "mixer_v1_trainer_class",
]

#: The v1 trainer mode this module registers (`trainer.v1.trainer_mode`).
MIXER_V1_MODE = "mixer-sync"
_OURS = ("mixer.adapters.verl", "MixerCurriculumSampler")


class ConfigError(ValueError):
    """A verl configuration under which the mixer would not choose the prompts."""


def _host_cpus(config: DictConfig) -> int:
    """The CPUs Ray will schedule on: a running cluster's, `ray_kwargs.ray_init.num_cpus`, or this
    process's CPU affinity (what Ray detects on a local start)."""
    if ray.is_initialized():
        return int(ray.cluster_resources().get("CPU", 0))
    given = OmegaConf.select(config, "ray_kwargs.ray_init.num_cpus")
    if given:
        return int(given)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _missing_micro_batches(config: DictConfig) -> list[str]:
    """The `*_micro_batch_size_per_gpu` settings verl will assert on, none of them given."""
    if OmegaConf.select(config, "actor_rollout_ref.actor.use_dynamic_bsz"):
        return []
    passes = [
        "actor_rollout_ref.actor.ppo_micro_batch_size",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size",
    ]
    if OmegaConf.select(config, "algorithm.use_kl_in_reward") or OmegaConf.select(
        config, "actor_rollout_ref.actor.use_kl_loss"
    ):
        passes.append("actor_rollout_ref.ref.log_prob_micro_batch_size")
    return [
        f"{k}_per_gpu"
        for k in passes
        if OmegaConf.select(config, k) is None and OmegaConf.select(config, f"{k}_per_gpu") is None
    ]


def check_config(config: DictConfig, cpus: int | None = None) -> None:
    """Refuse a configuration that would train without mixing, mix what it cannot credit, or hang
    or crash inside verl before the first step (`cpus`: the CPUs Ray schedules on; default
    `_host_cpus`)."""
    sampler = OmegaConf.select(config, "data.sampler") or {}
    path, name = sampler.get("class_path"), sampler.get("class_name")
    if path and not (str(path).endswith(_OURS[0]) and name in (None, _OURS[1])):
        raise ConfigError(
            f"data.sampler.class_path={path}: verl 0.8+ ignores it, and this entry point always "
            "draws with MixerCurriculumSampler; remove it"
        )
    if OmegaConf.select(config, "trainer.use_v1"):
        mode = OmegaConf.select(config, "trainer.v1.trainer_mode")
        if mode not in ("sync", MIXER_V1_MODE):
            raise ConfigError(
                f"trainer.v1.trainer_mode={mode}: the mixer supports the v1 trainer in 'sync' mode "
                "only (asynchronous modes generate ahead of the mixer); use sync or "
                "trainer.use_v1=false"
            )
    elif OmegaConf.select(config, "algorithm.filter_groups.enable"):
        raise ConfigError(
            "algorithm.filter_groups.enable=true with trainer.use_v1=false: verl 0.9's legacy "
            "trainer ignores it (DAPO's group filter lives in the v1 trainer's replay buffer); "
            "use trainer.use_v1=true"
        )
    gpus = OmegaConf.select(config, "trainer.n_gpus_per_node")
    if gpus is not None and int(gpus) < 1:
        raise ConfigError(
            f"trainer.n_gpus_per_node={gpus}: verl divides the batch by the device count (a "
            "ZeroDivisionError in its validate_config) and starts one worker a device; give at "
            "least 1 (on a host without GPUs: trainer.n_gpus_per_node=1 trainer.device=cpu)"
        )
    if OmegaConf.select(config, "trainer.use_v1") and (
        OmegaConf.select(config, "transfer_queue.backend.storage_backend") == "SimpleStorage"
    ):
        units = int(
            OmegaConf.select(config, "transfer_queue.backend.SimpleStorage.num_data_storage_units")
            or 0
        )
        cpus = _host_cpus(config) if cpus is None else int(cpus)
        if units + 1 > cpus:  # TransferQueue's controller and each storage unit hold a Ray CPU
            raise ConfigError(
                f"verl's v1 trainer starts TransferQueue with {units} storage units and a "
                f"controller, each a Ray actor that holds a CPU; Ray has {cpus} CPUs "
                "here, so it would wait forever without a word. Add "
                f"transfer_queue.backend.SimpleStorage.num_data_storage_units={max(1, cpus - 1)} "
                "(or run the legacy trainer: trainer.use_v1=false)"
            )

    missing = _missing_micro_batches(config)
    if missing:
        raise ConfigError(
            "verl needs a micro-batch size for each pass it runs (its validate_config asserts one "
            "at a time); add " + " ".join(f"{k}=2" for k in missing) + " (any size dividing the "
            "mini-batch), or actor_rollout_ref.actor.use_dynamic_bsz=true"
        )


def _with_mixer_dataset(config: DictConfig) -> None:
    """Rows through `MixerRLHFDataset` unless the user chose a class; `data.sampler.class_path`
    (ours, or check_config refused it) is dropped: this entry point always uses our sampler."""
    with open_dict(config):
        sampler = OmegaConf.select(config, "data.sampler")
        if sampler is not None:
            sampler.pop("class_path", None)
            sampler.pop("class_name", None)
        if not OmegaConf.select(config, "data.custom_cls.path"):
            config.data.custom_cls = {
                "path": "pkg://mixer.adapters.verl",
                "name": "MixerRLHFDataset",
            }


def mixer_sampler(data_config: Any, dataset: Any) -> MixerCurriculumSampler:
    """`create_rl_sampler`'s signature: the mixer's sampler over `dataset`."""
    return MixerCurriculumSampler(dataset, data_config)


def _uses(func: Any, *names: str) -> None:
    """Raise unless `func`'s code refers to each global in `names` (what a patch must replace)."""
    missing = [k for k in names if k not in func.__code__.co_names]
    if missing:
        raise RuntimeError(
            f"{func.__qualname__} no longer uses {missing}: this verl is not supported by "
            "mixer.adapters.verl_main (it would train without mixing)"
        )


@contextlib.contextmanager
def _patched(module: Any, **names: Any) -> Iterator[None]:
    """Replace module globals for the duration (inside a TaskRunner's own process)."""
    missing = [k for k in names if not hasattr(module, k)]
    if missing:
        raise RuntimeError(f"{module.__name__} has no {missing}: this verl is not supported")
    old = {k: getattr(module, k) for k in names}
    for k, v in names.items():
        setattr(module, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(module, k, v)


class _MixerTaskRunner(main_ppo_v0.TaskRunner.__ray_actor_class__):
    """verl's legacy TaskRunner, its sampler and trainer class swapped for the mixer's."""

    def run(self, config: DictConfig) -> None:
        _uses(super().run, "create_rl_sampler", "RayPPOTrainer")
        with _patched(
            main_ppo_v0,
            create_rl_sampler=mixer_sampler,
            RayPPOTrainer=mixer_trainer_class(RayPPOTrainer),
        ):
            super().run(config)


_V1_TRAINER: type | None = None


def _v1_metrics(sampler: Any, trained: int, discarded: int) -> dict[str, float]:
    """A v1 step's mixer metrics: the weights, the responses heard (those trained and those verl
    discarded), the responses of draws not yet whole, and the ledger's total."""
    out = {
        f"mixer/weight/{name}": float(x)
        for name, x in zip(sampler.mixed_sampler.names, sampler.mixer.weights(), strict=True)
    }
    out["mixer/heard_rollouts"] = trained + discarded
    out["mixer/heard_discarded_rollouts"] = discarded
    out["mixer/held_rollouts"] = sampler.held_rollouts
    ledger = getattr(sampler.mixed_sampler, "ledger", None)
    if ledger is not None:
        out["mixer/total/rollouts"] = ledger["rollouts"] + sampler.held_rollouts
    return out


def mixer_v1_trainer_class() -> type:
    """verl's v1 sync trainer with the mixer, registered as `trainer.v1.trainer_mode=mixer-sync`.

    Built on first use: verl's v1 package needs `TransferQueue` (verl's `verl-core` extra).
    verl's own code runs its synchronous paths (replay buffer, loader, checkpoints) where its
    `trainer_mode` is "sync", so the trainer runs under that name (the mode only selected it).
    `_init_dataloader` rebuilds verl's train `StatefulDataLoader` (same dataset, batch size,
    workers, collate) with a `MixerCurriculumSampler`, which draws `train_batch_size` prompts at a
    time; `_compute_advantage` reads the step's scores, uids and `extra_info` back from the
    transfer queue and gives them to the sampler (`hear`); with `algorithm.filter_groups` on,
    the groups verl's replay buffer discards (DAPO's zero-variance groups, the surplus) are read
    before it clears them (`_build_replay_buffer`) and heard too. Checkpoints hold what the
    sampler learnt, as the legacy trainer's.
    """
    global _V1_TRAINER
    if _V1_TRAINER is not None:
        return _V1_TRAINER
    from verl.trainer.ppo.v1 import PPOTrainerSync, register_trainer

    @register_trainer(MIXER_V1_MODE)
    class MixerPPOTrainerSync(PPOTrainerSync):
        train_dataloader: Any  # verl's, replaced by one that draws through the mixer

        heard_discarded = 0  # responses verl discarded, heard since the last step

        def __init__(self, config: DictConfig) -> None:
            with open_dict(config):
                config.trainer.v1.trainer_mode = "sync"
            super().__init__(config)

        def _init_dataloader(self) -> None:
            super()._init_dataloader()
            old = self.train_dataloader
            # verl fetches one prompt at a time for its refills (DAPO): draw a step's worth
            self.mixer_sampler = MixerCurriculumSampler(
                self.train_dataset, self.config.data, batch_size=self.config.data.train_batch_size
            )
            self.train_dataloader = StatefulDataLoader(
                dataset=old.dataset,
                batch_size=old.batch_size,
                num_workers=old.num_workers,
                drop_last=old.drop_last,
                collate_fn=old.collate_fn,
                sampler=self.mixer_sampler,
            )
            self.mixer_sampler.start(self.total_training_steps)

        def _save_checkpoint(self) -> None:
            super()._save_checkpoint()
            save_sampler_learning(
                self.mixer_sampler, _checkpoint_dir(self.config, self.global_steps)
            )

        def _load_checkpoint(self) -> Any:
            out = super()._load_checkpoint()
            if self.global_steps > 0:
                load_sampler_learning(
                    self.mixer_sampler, _checkpoint_dir(self.config, self.global_steps)
                )
            return out

        def _build_replay_buffer(self) -> Any:
            buffer = super()._build_replay_buffer()
            if getattr(buffer, "filter_groups_metric", None) is None:
                return buffer
            for method in (type(buffer).sample, type(buffer)._evict_terminal_groups):
                _uses(inspect.unwrap(method), "_clear_groups")  # how it drops groups: ours hears
            clear = buffer._clear_groups

            def hearing_clear(partition_id: str, uids: set[str]) -> None:
                if partition_id == "train" and uids:  # read them before they are gone
                    keys = [k for k in buffer.partitions[partition_id] if k.split("_")[0] in uids]
                    if keys:
                        self.heard_discarded += len(keys)
                        self._hear(keys, partition_id)
                clear(partition_id, uids)

            buffer._clear_groups = hearing_clear
            return buffer

        def _hear(self, keys: list[str], partition_id: str) -> None:
            import transfer_queue as tq

            td = tq.kv_batch_get(
                keys=keys,
                partition_id=partition_id,
                select_fields=["uid", "rm_scores", "extra_info"],
            )
            self.mixer_sampler.hear(*rows_of_tensordict(td, (self.mixer_sampler.source_key,)))

        def _compute_advantage(self, batch: Any, metrics: dict) -> Any:
            batch = super()._compute_advantage(batch, metrics)
            self._hear(list(batch.keys), batch.partition_id)
            metrics.update(_v1_metrics(self.mixer_sampler, len(batch.keys), self.heard_discarded))
            self.heard_discarded = 0
            return batch

    _V1_TRAINER = MixerPPOTrainerSync
    return MixerPPOTrainerSync


class _MixerTaskRunnerV1(main_ppo.TaskRunnerV1.__ray_actor_class__):
    """verl's v1 TaskRunner, run with the mixer's sync trainer (registered in this process)."""

    def run(self, config: DictConfig) -> None:
        _uses(super().run, "get_trainer_cls")
        mixer_v1_trainer_class()  # registers the mode in this actor's process
        with open_dict(config):
            config.trainer.v1.trainer_mode = MIXER_V1_MODE
        super().run(config)


MixerTaskRunner = ray.remote(_MixerTaskRunner)
MixerTaskRunnerV1 = ray.remote(_MixerTaskRunnerV1)


def _run(config: DictConfig) -> None:
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config
    from verl.utils.device import auto_set_device

    try:
        check_config(config)
    except ConfigError as e:
        print(f"mixer.adapters.verl_main: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    _with_mixer_dataset(config)
    auto_set_device(config)
    validate_config(
        config=config,
        use_reference_policy=need_reference_policy(config),
        use_critic=need_critic(config),
    )
    runner = MixerTaskRunnerV1 if config.trainer.use_v1 else MixerTaskRunner
    main_ppo.run_ppo(config, task_runner_class=runner)


def main() -> None:
    """Hydra entry point over verl's own `ppo_trainer` config."""
    import hydra

    config_dir = os.path.join(os.path.dirname(main_ppo.__file__), "config")
    hydra.main(config_path=config_dir, config_name="ppo_trainer", version_base=None)(_run)()


if __name__ == "__main__":
    main()
