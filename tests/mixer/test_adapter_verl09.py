"""The mixer inside verl 0.8+/0.9's real code paths (no GPU, no Ray workers, no `fit()`).

Runs in the verl environment (`.ci/run` builds it; by hand: `.venv-verl/bin/python -m pytest
tests/mixer/test_adapter_verl09.py`) and skips where verl >= 0.8 is not importable. What is real:
verl's composed hydra config, `RLHFDataset` (as our `MixerRLHFDataset`) over a `codemix export
--format verl` of the demo build, `RayPPOTrainer._create_dataloader` with the mixer's sampler and
two loader workers, `DataProto` batches repeated per rollout as `fit` does, rewards from verl's
`NaiveRewardManager` calling our `compute_score` (loaded by `get_custom_reward_fn`) in the
sandbox, GRPO advantages from verl's `compute_advantage`, the v1 trainer's `_init_dataloader` and
`_compute_advantage` on a real TransferQueue (local Ray), and the entry point's refusals. Not run:
generation, the actor and critic updates (GPU worker groups), `fit()`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import wait_s

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("verl") is None
    or importlib.util.find_spec("verl.experimental.dataset") is not None,
    reason="needs verl >= 0.8 importable",
)

ROOT = Path(__file__).resolve().parents[2]
ROLLOUT_N = 2


@pytest.fixture(scope="module")
def verl_export(tmp_path_factory) -> Path:
    """`codemix build` of the demo corpus, exported with `--format verl`."""
    out = tmp_path_factory.mktemp("verl")
    cli = [sys.executable, "-c", "from curation.cli import main; main()"]
    subprocess.run([*cli, "build", "--out", str(out / "demo")], check=True, capture_output=True)
    subprocess.run(
        [*cli, "export", str(out / "demo"), "--format", "verl", "--out", str(out / "verl")]
        + ["--split", "test=0.2"],
        check=True,
        capture_output=True,
    )
    return out / "verl"


def _rows(parquet: str) -> int:
    """How many problems the export wrote (the dataset must hold them all, none filtered)."""
    import pyarrow.parquet as pq

    return pq.ParquetFile(parquet).metadata.num_rows


def _tokenizer():
    """A character-level tokenizer with a chat template, built offline."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    chars = [chr(i) for i in range(32, 127)] + ["\n", "\t"]
    vocab = {c: i for i, c in enumerate(["<pad>", "<eos>", *chars])}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<pad>"))
    tk.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tk.decoder = decoders.Fuse()  # characters back into the text, no spaces between
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="<eos>")
    tok.chat_template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    return tok


def _config(verl_export: Path, *overrides: str):
    """verl's own `ppo_trainer` config, composed by hydra with our overrides."""
    from hydra import compose, initialize_config_dir
    from verl.trainer import main_ppo

    config_dir = os.path.join(os.path.dirname(main_ppo.__file__), "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(
            "ppo_trainer",
            overrides=[
                f"data.train_files={verl_export / 'train.parquet'}",
                f"data.val_files={verl_export / 'test.parquet'}",
                "data.train_batch_size=6",
                "data.max_prompt_length=4096",
                "data.dataloader_num_workers=2",
                "data.custom_cls.path=pkg://mixer.adapters.verl",
                "data.custom_cls.name=MixerRLHFDataset",
                "+data.sampler.mixer=advantage-bandit",
                "+data.sampler.source_key=difficulty_bucket",
                "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
                "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
                f"reward.custom_reward_function.path={ROOT / 'filters/reward/trainer_rewards.py'}",
                "reward.custom_reward_function.name=compute_score",
                *overrides,
            ],
        )


def _recording(mixer) -> dict[int, np.ndarray]:
    drew: dict[int, np.ndarray] = {}
    issue = mixer.issue

    def recorded():
        wid, w = issue()
        drew[wid] = w.copy()
        return wid, w

    mixer.issue = recorded
    return drew


def _responses(batch, hard: set[str]) -> list[str]:
    """Per response: the reference solution (first response of a prompt) or a wrong program;
    both are wrong for prompts of the `hard` sources, so their groups have no advantage."""
    out = []
    for i, (gt, info) in enumerate(
        zip(
            batch.non_tensor_batch["reward_model"],
            batch.non_tensor_batch["extra_info"],
            strict=True,
        )
    ):
        sol = json.loads(gt["ground_truth"])["solutions"][0]
        right = i % ROLLOUT_N == 0 and str(info["difficulty_bucket"]) not in hard
        out.append(f"```python\n{sol if right else 'print(0)'}\n```")
    return out


def _score(manager, batch, texts, tok) -> tuple:
    """Token-level scores as verl's reward loop leaves them: the score on the last response token."""
    import torch
    from verl import DataProto

    ids = [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
    width = max(map(len, ids))
    scores = torch.zeros(len(ids), width)
    for i, r in enumerate(ids):
        item = DataProto.from_dict(
            tensors={
                "responses": torch.tensor([r + [0] * (width - len(r))]),
                "attention_mask": torch.tensor([[1] * len(r) + [0] * (width - len(r))]),
            },
            non_tensors={
                k: batch.non_tensor_batch[k][i : i + 1]
                for k in ("data_source", "reward_model", "extra_info")
            },
        )
        out = manager.loop.run_until_complete(manager.run_single(item))  # its own loop
        scores[i, len(r) - 1] = float(out["reward_score"])
    return scores, torch.tensor([[1.0] * len(r) + [0.0] * (width - len(r)) for r in ids])


def test_legacy_trainer_mixes_and_credits_the_weights_that_drew_each_batch(verl_export) -> None:
    from verl import DataProto
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager
    from verl.trainer.ppo.ray_trainer import RayPPOTrainer, compute_advantage
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.trainer.ppo.utils import create_rl_dataset
    from verl.utils.dataset.rl_dataset import collate_fn

    from mixer.adapters.verl import MixerCurriculumSampler, MixerRLHFDataset, mixer_trainer_class
    from mixer.adapters.verl_main import mixer_sampler

    config = _config(verl_export)
    tok = _tokenizer()
    train = create_rl_dataset(config.data.train_files, config.data, tok, None, is_train=True)
    val = create_rl_dataset(config.data.val_files, config.data, tok, None, is_train=False)
    assert isinstance(train, MixerRLHFDataset) and len(train) == _rows(config.data.train_files)
    sampler = mixer_sampler(config.data, train)
    assert sampler.mixed_sampler.names == ["0", "1", "2", "3", "4"]
    drew = _recording(sampler.mixer)

    tr = object.__new__(mixer_trainer_class(RayPPOTrainer))
    tr.config, tr.tokenizer, tr.processor = config, tok, None
    RayPPOTrainer._create_dataloader(tr, train, val, collate_fn, sampler)  # verl's own
    assert tr.train_dataloader.sampler is sampler and tr.train_dataloader.num_workers == 2
    assert isinstance(tr._mixer_sampler(), MixerCurriculumSampler)

    manager = NaiveRewardManager(config, tok, get_custom_reward_fn(config))
    current = []
    steps = 5
    for _, batch_dict in zip(range(steps), tr.train_dataloader, strict=False):
        batch = DataProto.from_single_dict(batch_dict)
        batch.non_tensor_batch["uid"] = np.array([str(uuid.uuid4()) for _ in range(len(batch))])
        batch = batch.repeat(repeat_times=ROLLOUT_N, interleave=True)
        scores, mask = _score(manager, batch, _responses(batch, hard={"4"}), tok)
        batch.batch["token_level_scores"] = scores
        batch.batch["token_level_rewards"] = scores
        batch.batch["response_mask"] = mask
        batch = compute_advantage(batch, adv_estimator="grpo", num_repeat=ROLLOUT_N)
        current.append(sampler.mixer.weights().copy())
        tr._feed_mixer(batch)

    hist = sampler.mixer.history
    assert len(hist) == steps
    lagged = 0
    for rec, now in zip(hist, current, strict=True):
        w = drew[rec["weights_id"]]
        np.testing.assert_array_equal(rec["weights"], w)
        n = np.asarray(rec["counts"])
        assert n.sum() == 6 and (n >= np.floor(w * 6)).all() and (n <= np.ceil(w * 6)).all()
        lagged += not np.array_equal(w, now)
    assert lagged > 0  # two workers drew ahead: the current weights were not those that drew
    assert all(r["reward"][4] in (0.0, None) for r in hist)  # references do pass elsewhere
    assert any((r["reward"][i] or 0) > 0 for r in hist for i in range(4))
    w = sampler.mixer.weights()
    assert w[4] == w.min() and w[4] < 0.2  # no advantage in bucket 4: the mixer moved away


def test_without_carried_ids_workers_are_refused(verl_export) -> None:
    from verl.trainer.ppo.utils import create_rl_dataset

    from mixer.adapters.verl import MixerCurriculumSampler

    config = _config(verl_export, "data.custom_cls.path=null")
    train = create_rl_dataset(config.data.train_files, config.data, _tokenizer(), None)
    with pytest.raises(ValueError, match="dataloader_num_workers=2"):
        MixerCurriculumSampler(train, config.data)


def test_entry_point_refuses_a_sampler_verl_would_ignore(verl_export) -> None:
    """`+data.sampler.class_path=...` composes on verl 0.9 and is silently ignored by verl's main;
    ours says so and exits 2 before starting anything."""
    r = subprocess.run(
        [sys.executable, "-m", "mixer.adapters.verl_main"]
        + ["+data.sampler.class_path=pkg://my.sampler", "+data.sampler.class_name=Mine"],
        capture_output=True,
        text=True,
        timeout=wait_s(120),
    )
    assert r.returncode == 2, r.stderr[-2000:]
    assert "data.sampler.class_path=pkg://my.sampler: verl 0.8+ ignores it" in r.stderr


def test_verls_own_main_with_our_class_path_is_refused_by_our_dataset(verl_export) -> None:
    """On 0.9, `verl.trainer.main_ppo +data.sampler.class_path=pkg://mixer.adapters.verl` with our
    dataset would train at random: the dataset refuses it. Our entry point drops the setting."""
    from verl.trainer.ppo.utils import create_rl_dataset

    from mixer.adapters.verl_main import _with_mixer_dataset

    config = _config(
        verl_export,
        "+data.sampler.class_path=pkg://mixer.adapters.verl",
        "+data.sampler.class_name=MixerCurriculumSampler",
    )
    with pytest.raises(ValueError, match="python -m mixer.adapters.verl_main"):
        create_rl_dataset(config.data.train_files, config.data, _tokenizer(), None)
    _with_mixer_dataset(config)
    assert "class_path" not in config.data.sampler and config.data.sampler.mixer
    ds = create_rl_dataset(config.data.train_files, config.data, _tokenizer(), None)
    assert len(ds) == _rows(config.data.train_files)


def test_task_runners_patch_what_verls_run_uses() -> None:
    """The legacy TaskRunner's run must still build its sampler and trainer through the globals we
    replace (else it would train without mixing), and the replacement is undone afterwards."""
    from verl.trainer import main_ppo, main_ppo_v0

    from mixer.adapters.verl_main import _MixerTaskRunner, _MixerTaskRunnerV1, _patched, _uses

    _uses(main_ppo_v0.TaskRunner.__ray_actor_class__.run, "create_rl_sampler", "RayPPOTrainer")
    _uses(main_ppo.TaskRunnerV1.__ray_actor_class__.run, "get_trainer_cls")
    assert issubclass(_MixerTaskRunner, main_ppo_v0.TaskRunner.__ray_actor_class__)
    assert issubclass(_MixerTaskRunnerV1, main_ppo.TaskRunnerV1.__ray_actor_class__)
    before = main_ppo_v0.create_rl_sampler
    with _patched(main_ppo_v0, create_rl_sampler=len):
        assert main_ppo_v0.create_rl_sampler is len
    assert main_ppo_v0.create_rl_sampler is before
    with pytest.raises(RuntimeError, match="no longer uses"):
        _uses(main_ppo_v0.TaskRunner.__ray_actor_class__.run, "create_sampler_v2")


def test_entry_point_refuses_async_v1_modes(verl_export) -> None:
    from mixer.adapters.verl_main import ConfigError, check_config

    check_config(_config(verl_export), cpus=16)  # the default (v1, sync) is accepted on 16 CPUs
    with pytest.raises(ConfigError, match="sync"):
        check_config(_config(verl_export, "trainer.v1.trainer_mode=colocate_async"))


@pytest.mark.skipif(
    importlib.util.find_spec("transfer_queue") is None,
    reason="verl's v1 trainer needs TransferQueue",
)
def test_v1_trainer_draws_with_the_mixer_and_reads_feedback_from_its_rows(verl_export) -> None:
    import torch
    from verl.utils.tensordict_utils import list_of_dict_to_tensordict

    from mixer.adapters.verl_main import MIXER_V1_MODE, mixer_v1_trainer_class

    cls = mixer_v1_trainer_class()
    from verl.trainer.ppo.v1 import get_trainer_cls

    assert get_trainer_cls(MIXER_V1_MODE) is cls
    tr = object.__new__(cls)
    tr.config, tr.tokenizer, tr.processor = _config(verl_export), _tokenizer(), None
    tr.trainer_mode = "sync"
    tr.parameter_sync_step = 1
    tr._init_dataloader()  # verl's, then ours swaps the sampler in
    assert tr.train_dataloader.sampler is tr.mixer_sampler
    drew = _recording(tr.mixer_sampler.mixer)
    batch = next(iter(tr.train_dataloader))
    infos = list(batch["extra_info"])
    wid = infos[0]["mixer_weights_id"]
    assert all(x["mixer_weights_id"] == wid for x in infos)
    # one trajectory per response, as the agent loop puts them: the prompt's fields + jagged scores
    rows = []
    for i, info in enumerate(infos):
        for k in range(ROLLOUT_N):
            s = torch.zeros(3 + i % 2)
            s[-1] = float(k == 0 and info["difficulty_bucket"] != 4)
            rows.append({"uid": f"u{i}", "rm_scores": s, "extra_info": info})
    from mixer.adapters.verl import feedback_from_tensordict

    fb = feedback_from_tensordict(list_of_dict_to_tensordict(rows), tr.mixer_sampler)
    assert fb.weights_id == wid and fb.counts.sum() == 6
    tr.mixer_sampler.mixer.update(fb)
    np.testing.assert_array_equal(tr.mixer_sampler.mixer.history[0]["weights"], drew[wid])


@pytest.mark.skipif(
    importlib.util.find_spec("transfer_queue") is None,
    reason="verl's v1 trainer needs TransferQueue",
)
def test_v1_compute_advantage_feeds_the_mixer_through_the_transfer_queue(verl_export) -> None:
    """verl's own `_compute_advantage` on trajectories in a real (local Ray) transfer queue, as
    the agent loop leaves them; ours then reads scores and rows back and updates the mixer."""
    import ray
    import torch
    import transfer_queue as tq
    from verl.utils.tensordict_utils import list_of_dict_to_tensordict

    from mixer.adapters.verl_main import mixer_v1_trainer_class

    tr = object.__new__(mixer_v1_trainer_class())
    tr.config = _config(
        verl_export, f"actor_rollout_ref.rollout.n={ROLLOUT_N}", "algorithm.adv_estimator=grpo"
    )
    tr.tokenizer, tr.processor, tr.trainer_mode, tr.parameter_sync_step = (
        _tokenizer(),
        None,
        "sync",
        1,
    )
    tr._init_dataloader()
    drew = _recording(tr.mixer_sampler.mixer)
    infos = list(next(iter(tr.train_dataloader))["extra_info"])
    wid = infos[0]["mixer_weights_id"]
    rows, keys = [], []
    for i, info in enumerate(infos):
        for k in range(ROLLOUT_N):
            n_tok = 3 + i % 2
            score = torch.zeros(n_tok)
            score[-1] = float(k == 0 and info["difficulty_bucket"] != 4)
            rows.append(
                {
                    "uid": f"u{i}",
                    "rm_scores": score,
                    "response_mask": torch.ones(n_tok, dtype=torch.int64),
                    "old_log_probs": torch.zeros(n_tok),
                    "extra_info": info,
                }
            )
            keys.append(f"u{i}_{k}_0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        tq.init({"backend": {"SimpleStorage": {"num_data_storage_units": 1}}})
        meta = tq.kv_batch_put(
            keys=keys, partition_id="train", fields=list_of_dict_to_tensordict(rows)
        )
        metrics: dict = {}
        tr._compute_advantage(meta, metrics)  # verl's, then the mixer's update
        adv = tq.kv_batch_get(keys=meta.keys, partition_id="train", select_fields=["advantages"])
        assert adv["advantages"] is not None  # verl wrote its GRPO advantages back
        tq.close()
    finally:
        ray.shutdown()
    hist = tr.mixer_sampler.mixer.history
    assert len(hist) == 1 and hist[0]["weights_id"] == wid and sum(hist[0]["counts"]) == 6
    np.testing.assert_array_equal(hist[0]["weights"], drew[wid])
    assert set(metrics) >= {f"mixer/weight/{b}" for b in tr.mixer_sampler.mixed_sampler.names}
    buckets = [str(x["difficulty_bucket"]) for x in infos]
    for b, r in zip(tr.mixer_sampler.mixed_sampler.names, hist[0]["reward"], strict=True):
        assert (r is None) == (b not in buckets)
        assert r in (None, 0.0 if b == "4" else 0.5)


def test_entry_point_refuses_what_would_crash_or_hang_inside_verl(verl_export) -> None:
    """`trainer.n_gpus_per_node=0` ended in a ZeroDivisionError; the v1 trainer's 8 TransferQueue
    storage units (a Ray CPU each, beside the controller's) hung on a 2-CPU host without a word.
    Both are refused with the fix in the message, and the fix is accepted."""
    from mixer.adapters.verl_main import ConfigError, check_config

    with pytest.raises(ConfigError, match=r"n_gpus_per_node=0.*trainer\.device=cpu"):
        check_config(_config(verl_export, "trainer.n_gpus_per_node=0"), cpus=16)
    with pytest.raises(ConfigError, match=r"8 storage units.*num_data_storage_units=1 "):
        check_config(_config(verl_export), cpus=2)
    check_config(
        _config(verl_export, "transfer_queue.backend.SimpleStorage.num_data_storage_units=1"),
        cpus=2,
    )
    check_config(_config(verl_export, "trainer.use_v1=false"), cpus=2)  # no TransferQueue there
    # the entry point itself: one line on stderr, exit 2, before Ray starts
    run = subprocess.run(
        [sys.executable, "-m", "mixer.adapters.verl_main",
         f"data.train_files={verl_export / 'train.parquet'}",
         f"data.val_files={verl_export / 'test.parquet'}", "ray_kwargs.ray_init.num_cpus=2"],
        capture_output=True, text=True, timeout=wait_s(300), cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr[-2000:]
    assert "num_data_storage_units=1" in run.stderr and "Traceback" not in run.stderr


def test_legacy_trainer_tells_the_mixer_the_run_length_and_logs_its_start(
    verl_export, caplog
) -> None:
    """verl's own `_create_dataloader` through our trainer subclass: ACODM hears verl's
    `total_training_steps`; the sampler says it is active when verl builds it, before any worker."""
    import logging

    from verl.trainer.ppo.ray_trainer import RayPPOTrainer
    from verl.trainer.ppo.utils import create_rl_dataset
    from verl.utils.dataset.rl_dataset import collate_fn

    from mixer.adapters.verl import mixer_trainer_class
    from mixer.adapters.verl_main import mixer_sampler

    config = _config(verl_export, "data.sampler.mixer=acodm", "trainer.total_training_steps=7")
    tok = _tokenizer()
    train = create_rl_dataset(config.data.train_files, config.data, tok, None, is_train=True)
    val = create_rl_dataset(config.data.val_files, config.data, tok, None, is_train=False)
    logger = logging.getLogger("codemix.mixer")
    logger.addHandler(caplog.handler)
    try:
        sampler = mixer_sampler(config.data, train)
        tr = object.__new__(mixer_trainer_class(RayPPOTrainer))
        tr.config, tr.tokenizer, tr.processor = config, tok, None
        type(tr)._create_dataloader(tr, train, val, collate_fn, sampler)
    finally:
        logger.removeHandler(caplog.handler)
    assert sampler.mixer.horizon == 7 and sampler.mixer.warmup == 1
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("verl: mixing with acodm over 5 sources (0 ")
    assert any("horizon 7 updates (verl: total_training_steps)" in x for x in lines)


def test_a_frontier_sampler_of_the_build_is_refused_for_the_verl_export(verl_export) -> None:
    """The build's shards hold 45 rows, the export's train split 36: `sampler=` built from the
    shards is refused by problem id; one built from verl's own dataset frame is accepted."""
    from verl.trainer.ppo.utils import create_rl_dataset

    from mixer import FrontierSampler
    from mixer.adapters.verl import MixerCurriculumSampler
    from mixer.rows import RowMismatch

    config = _config(verl_export)
    train = create_rl_dataset(config.data.train_files, config.data, _tokenizer(), None, True)
    wrong = FrontierSampler.from_shards(verl_export.parent / "demo", batch_size=6)
    with pytest.raises(RowMismatch, match="verl's train dataset"):
        MixerCurriculumSampler(train, config.data, sampler=wrong)
    right = FrontierSampler.from_dataset(train.dataframe, batch_size=6, group_by="data_source",
                                         difficulty_column=None, std_column=None)  # fmt: skip
    MixerCurriculumSampler(train, config.data, sampler=right)


def _documented_command() -> list[str]:
    """The overrides of the `python -m mixer.adapters.verl_main` command in docs/mixer.md."""
    import re
    import shlex

    text = (ROOT / "docs" / "mixer.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    (block,) = [b for b in blocks if "python -m mixer.adapters.verl_main" in b]
    command = block[block.index("python -m mixer.adapters.verl_main") :].replace("\\\n", " ")
    rewards = str(ROOT / "filters" / "reward" / "trainer_rewards.py")
    command = re.sub(r"\$\(python -c \"[^\"]*\"\)", rewards, command)
    return shlex.split(command.strip())[3:]


def test_the_documented_verl_command_is_accepted_by_us_and_by_verl(verl_export) -> None:
    """The command in docs/mixer.md, composed with verl's config: our checks and verl's own
    `validate_config` accept it (verl asserts on each missing micro-batch size, which the command
    must therefore give, and our check names them all at once)."""
    from hydra import compose, initialize_config_dir
    from verl.trainer import main_ppo
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config

    from mixer.adapters.verl_main import ConfigError, _with_mixer_dataset, check_config

    overrides = [
        f"data.train_files={verl_export / 'train.parquet'}" if o.startswith("data.train_files=")
        else f"data.val_files={verl_export / 'test.parquet'}" if o.startswith("data.val_files=")
        else o
        for o in _documented_command()
    ]  # fmt: skip
    assert any(o.startswith("actor_rollout_ref.model.path=") for o in overrides)
    config_dir = os.path.join(os.path.dirname(main_ppo.__file__), "config")

    def composed(*extra: str):
        with initialize_config_dir(config_dir=config_dir, version_base=None):
            return compose("ppo_trainer", overrides=[*overrides, *extra])

    check_config(composed(), cpus=16)
    config = composed()
    _with_mixer_dataset(config)
    validate_config(config, need_reference_policy(config), need_critic(config))
    # one missing micro-batch size: refused with its name, not verl's assertion later
    with pytest.raises(ConfigError, match=r"ppo_micro_batch_size_per_gpu=2 "):
        check_config(composed("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=null"), cpus=16)
    with pytest.raises(ConfigError, match="ref.log_prob_micro_batch_size_per_gpu"):
        check_config(
            composed(
                "actor_rollout_ref.actor.use_kl_loss=true",
                "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=null",
            ),
            cpus=16,
        )
