"""FrontierSampler inside verl 0.9's real code paths, in the style of test_adapter_verl09.py (its
fixtures and helpers): `+data.sampler.problems=frontier` over `MixerRLHFDataset` rows of a
`codemix export --format verl` of the demo build (the prior from its `difficulty` column),
`RayPPOTrainer._create_dataloader` with two workers, `DataProto` batches repeated per rollout,
scores from verl's `NaiveRewardManager` calling our `compute_score` in the sandbox, GRPO
advantages from verl, then the trainer subclass's feed; and the v1 trainer's loader and feedback.
Runs in the verl environment (`.venv-verl`, see .ci/run); skips elsewhere.
"""

from __future__ import annotations

import importlib.util
import uuid

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("verl") is None
    or importlib.util.find_spec("verl.experimental.dataset") is not None,
    reason="needs verl >= 0.8 importable",
)

if importlib.util.find_spec("verl") is not None:
    from tests.mixer.test_adapter_verl09 import (  # noqa: F401 - verl_export is a fixture
        ROLLOUT_N,
        _config,
        _responses,
        _score,
        _tokenizer,
        verl_export,
    )


def test_legacy_trainer_feeds_each_problem_under_prefetch(verl_export) -> None:
    from verl import DataProto
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager
    from verl.trainer.ppo.ray_trainer import RayPPOTrainer, compute_advantage
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.trainer.ppo.utils import create_rl_dataset
    from verl.utils.dataset.rl_dataset import collate_fn

    from mixer import FrontierSampler
    from mixer.adapters.verl import mixer_trainer_class
    from mixer.adapters.verl_main import mixer_sampler

    config = _config(verl_export, "+data.sampler.problems=frontier")
    tok = _tokenizer()
    train = create_rl_dataset(config.data.train_files, config.data, tok, None, is_train=True)
    val = create_rl_dataset(config.data.val_files, config.data, tok, None, is_train=False)
    sampler = mixer_sampler(config.data, train)
    fr = sampler.mixed_sampler
    assert isinstance(fr, FrontierSampler)
    difficulty = np.array([float(x) for x in train.dataframe["difficulty"]])
    p0 = fr.predicted_pass_rate(np.arange(len(train)))
    assert np.isfinite(difficulty).sum() > 10
    ok = np.isfinite(difficulty)
    # the prior: a problem curated harder is predicted to pass less often
    assert np.corrcoef(difficulty[ok], p0[ok])[0, 1] < -0.5

    drawn: list[int] = []
    next_batch = fr.next_batch

    def rec():
        out = next_batch()
        drawn.append(fr.last_weights_id)
        return out

    fr.next_batch = rec
    tr = object.__new__(mixer_trainer_class(RayPPOTrainer))
    tr.config, tr.tokenizer, tr.processor = config, tok, None
    RayPPOTrainer._create_dataloader(tr, train, val, collate_fn, sampler)  # verl's own
    assert tr.train_dataloader.sampler is sampler and tr.train_dataloader.num_workers == 2
    manager = NaiveRewardManager(config, tok, get_custom_reward_fn(config))
    steps, lagged, rows_seen = 4, 0, []
    for _, batch_dict in zip(range(steps), tr.train_dataloader, strict=False):
        batch = DataProto.from_single_dict(batch_dict)
        wid = batch.non_tensor_batch["extra_info"][0]["mixer_weights_id"]
        lagged += wid != drawn[-1]
        batch.non_tensor_batch["uid"] = np.array([str(uuid.uuid4()) for _ in range(len(batch))])
        batch = batch.repeat(repeat_times=ROLLOUT_N, interleave=True)
        rows_seen += [int(x["mixer_row"]) for x in batch.non_tensor_batch["extra_info"]]
        scores, mask = _score(manager, batch, _responses(batch, hard={"4"}), tok)
        batch.batch["token_level_scores"] = scores
        batch.batch["token_level_rewards"] = scores
        batch.batch["response_mask"] = mask
        batch = compute_advantage(batch, adv_estimator="grpo", num_repeat=ROLLOUT_N)
        tr._feed_mixer(batch)
    assert lagged > 0  # two workers drew ahead of the batch being fed
    assert fr.ledger["updates"] == steps and fr.ledger["rollouts"] == steps * 6 * ROLLOUT_N
    assert fr.ledger["groups"] == steps * 6
    assert [h["weights_id"] for h in sampler.mixer.history] == drawn[:steps]
    p1 = fr.predicted_pass_rate(np.arange(len(train)))
    bucket = np.array([str(x) for x in train.dataframe["difficulty_bucket"]])
    hard = [r for r in set(rows_seen) if bucket[r] == "4"]
    assert hard and all(p1[r] < p0[r] for r in hard)  # all its attempts failed


@pytest.mark.skipif(
    importlib.util.find_spec("transfer_queue") is None,
    reason="verl's v1 trainer needs TransferQueue",
)
def test_v1_trainer_loader_and_feedback_reach_the_frontier_sampler(verl_export) -> None:
    import torch
    from verl.utils.tensordict_utils import list_of_dict_to_tensordict

    from mixer import FrontierSampler
    from mixer.adapters.verl import feed_tensordict
    from mixer.adapters.verl_main import mixer_v1_trainer_class

    tr = object.__new__(mixer_v1_trainer_class())
    tr.config = _config(verl_export, "+data.sampler.problems=frontier")
    tr.tokenizer, tr.processor, tr.trainer_mode, tr.parameter_sync_step = (
        _tokenizer(),
        None,
        "sync",
        1,
    )
    tr._init_dataloader()
    fr = tr.mixer_sampler.mixed_sampler
    assert isinstance(fr, FrontierSampler)
    batch = next(iter(tr.train_dataloader))
    infos = list(batch["extra_info"])
    rows = []
    for i, info in enumerate(infos):
        for k in range(ROLLOUT_N):
            s = torch.zeros(3 + i % 2)
            s[-1] = float(k == 0)
            rows.append({"uid": f"u{i}", "rm_scores": s, "extra_info": info})
    feed_tensordict(list_of_dict_to_tensordict(rows), tr.mixer_sampler)
    assert fr.ledger["rollouts"] == 6 * ROLLOUT_N and fr.ledger["zero_advantage_groups"] == 0
    assert tr.mixer_sampler.mixer.history[0]["weights_id"] == infos[0]["mixer_weights_id"]


@pytest.mark.skipif(
    importlib.util.find_spec("transfer_queue") is None,
    reason="verl's v1 trainer needs TransferQueue",
)
def test_v1_checkpoint_keeps_what_the_frontier_sampler_learnt(verl_export, tmp_path, monkeypatch):
    """The v1 trainer's loader state holds the sampler as it was when it drew; our overrides of
    `_save_checkpoint` / `_load_checkpoint` add the mixer and the sampler's learnt state (verl's
    own checkpointing of workers is replaced by no-ops: no GPU workers here)."""
    import torch
    from verl.trainer.ppo.v1 import PPOTrainerSync
    from verl.utils.tensordict_utils import list_of_dict_to_tensordict

    from mixer.adapters.verl import feed_tensordict
    from mixer.adapters.verl_main import mixer_v1_trainer_class

    def base_load(self):  # what verl's does for the sampler: restore the loader's snapshot
        self.global_steps = 1
        self.mixer_sampler.load_state_dict(self.snapshot)

    monkeypatch.setattr(PPOTrainerSync, "_save_checkpoint", lambda self: None)
    monkeypatch.setattr(PPOTrainerSync, "_load_checkpoint", base_load)

    def trainer():
        tr = object.__new__(mixer_v1_trainer_class())
        tr.config = _config(
            verl_export,
            "+data.sampler.problems=frontier",
            f"trainer.default_local_dir={tmp_path}",
            "data.dataloader_num_workers=0",
        )
        tr.tokenizer, tr.processor, tr.trainer_mode, tr.parameter_sync_step = (
            _tokenizer(),
            None,
            "sync",
            1,
        )
        tr._init_dataloader()
        return tr

    tr = trainer()
    snapshot = tr.mixer_sampler.state_dict()
    batch = next(iter(tr.train_dataloader))
    rows = [
        {"uid": f"u{i}", "rm_scores": torch.tensor([0.0, float(k == 0)]), "extra_info": info}
        for i, info in enumerate(batch["extra_info"])
        for k in range(ROLLOUT_N)
    ]
    feed_tensordict(list_of_dict_to_tensordict(rows), tr.mixer_sampler)
    tr.global_steps = 1
    tr._save_checkpoint()
    tr2 = trainer()
    tr2.snapshot = snapshot
    tr2._load_checkpoint()
    a, b = tr.mixer_sampler, tr2.mixer_sampler
    assert (
        b.mixed_sampler.ledger == a.mixed_sampler.ledger and b.mixed_sampler.ledger["updates"] == 1
    )
    n = len(a.data_source)
    np.testing.assert_array_equal(
        b.mixed_sampler.predicted_pass_rate(np.arange(n)),
        a.mixed_sampler.predicted_pass_rate(np.arange(n)),
    )
    assert b.mixer.history == a.mixer.history
