"""verl 0.9's own group filter (DAPO, `algorithm.filter_groups`) beside a codemix sampler: the v1
trainer built by verl's own `__init__` (its sync `ReplayBuffer` with the filter, our hook in it),
verl's `prepare_step` and `ReplayBuffer.sample` (its eviction of zero-variance groups, its refills
through our loader, its surplus) and `_compute_advantage` on a real TransferQueue (local Ray, CPU),
over `MixerRLHFDataset` rows of a `codemix export --format verl` of the demo build. What stands in
for the GPUs is the generation: each dispatched prompt's responses are put into the queue as
verl's agent loop puts them, scored by a rule (difficulty bucket 0 always passes, 4 always fails,
the others pass on the first response only). The sampler must hear every group generated,
trained or discarded, each credited to the draw that made it.

Runs in the verl environment (`.venv-verl`, see .ci/run); skips elsewhere.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("verl") is None
    or importlib.util.find_spec("verl.experimental.dataset") is not None
    or importlib.util.find_spec("transfer_queue") is None,
    reason="needs verl >= 0.8 and TransferQueue importable",
)

if importlib.util.find_spec("verl") is not None:
    from tests.mixer.test_adapter_verl09 import (  # noqa: F401 - verl_export is a fixture
        ROLLOUT_N,
        _config,
        _tokenizer,
        verl_export,
    )

BATCH = 6  # data.train_batch_size in _config
STEPS = 3


class _Rollouts:
    """Stands in for verl's agent loop: puts each prompt's responses and its finished status into
    the transfer queue (keys `{uid}_{session}_0`, as `AgentLoopWorkerTQ` does), and remembers what
    it generated."""

    def __init__(self, step) -> None:
        self.step = step
        self.prompts: dict[str, dict] = {}  # uid -> extra_info, scores

    def generate_sequences(self, batch) -> None:
        import torch
        import transfer_queue as tq
        from verl.utils.tensordict_utils import list_of_dict_to_tensordict

        from mixer.adapters.verl import _as_list

        for uid, info in zip(_as_list(batch["uid"]), _as_list(batch["extra_info"]), strict=True):
            bucket = str(info["difficulty_bucket"])
            scores = [float(bucket == "0" or (bucket != "4" and k == 0)) for k in range(ROLLOUT_N)]
            rows, keys = [], []
            for k, score in enumerate(scores):
                n_tok = 3 + k
                rm = torch.zeros(n_tok)
                rm[-1] = score
                rows.append(
                    {
                        "uid": uid,
                        "rm_scores": rm,
                        "response_mask": torch.ones(n_tok, dtype=torch.int64),
                        "old_log_probs": torch.zeros(n_tok),
                        "extra_info": info,
                    }
                )
                keys.append(f"{uid}_{k}_0")
            tags = [{"status": "success", "global_steps": self.step()} for _ in keys]
            tq.kv_batch_put(
                keys=keys, partition_id="train", fields=list_of_dict_to_tensordict(rows), tags=tags
            )
            tq.kv_put(key=uid, partition_id="train", tag={"status": "finished"})
            self.prompts[uid] = {"info": info, "scores": scores}


def test_verls_group_filter_discards_and_the_sampler_hears_every_group(verl_export) -> None:
    import ray
    import transfer_queue as tq
    from verl.trainer.ppo.v1.replay_buffer import ReplayBuffer

    from mixer import ProblemSampler
    from mixer.adapters.torch import ROW_KEY, WEIGHTS_ID_KEY
    from mixer.adapters.verl_main import MIXER_V1_MODE, mixer_v1_trainer_class

    config = _config(
        verl_export,
        f"actor_rollout_ref.rollout.n={ROLLOUT_N}",
        "algorithm.adv_estimator=grpo",
        "algorithm.filter_groups.enable=true",
        "algorithm.filter_groups.metric=reward",
        "+data.sampler.problems=uniform",
        "data.dataloader_num_workers=0",
        f"trainer.v1.trainer_mode={MIXER_V1_MODE}",
    )
    tr = mixer_v1_trainer_class()(config)  # verl's own __init__ builds the replay buffer
    assert tr.trainer_mode == "sync" and type(tr.replay_buffer) is ReplayBuffer
    assert tr.replay_buffer.filter_groups_metric == "reward"
    tr.tokenizer, tr.processor = _tokenizer(), None
    tr._init_dataloader()  # verl's, then ours: verl now fetches one prompt at a time
    assert (
        tr.train_dataloader.batch_size == 1 and tr.mixer_sampler.mixed_sampler.batch_size == BATCH
    )
    sampler = tr.mixer_sampler.mixed_sampler
    assert type(sampler) is ProblemSampler
    draws: dict[int, list[int]] = {}
    heard: list[tuple[object, list[int], list[str]]] = []
    next_batch, learn = sampler.next_batch, sampler.learn

    def drawing():
        idx = next_batch()
        draws[sampler.last_weights_id] = [int(i) for i in idx]
        return idx

    def learning(rows, rewards, **kw):
        heard.append((kw["weights_id"], [int(r) for r in rows], [str(g) for g in kw["group_ids"]]))
        return learn(rows, rewards, **kw)

    sampler.next_batch, sampler.learn = drawing, learning
    rollouts = _Rollouts(lambda: tr.global_steps)
    tr.agent_loop_manager = rollouts
    trained: list[str] = []
    logged: list[dict] = []
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        tq.init({"backend": {"SimpleStorage": {"num_data_storage_units": 1}}})
        for step in range(1, STEPS + 1):  # fit's loop, less the GPU passes
            tr.global_steps = step
            tr.prepare_step()
            batch, metrics = tr.replay_buffer.sample(
                global_steps=step, partition_id="train", batch_size=BATCH
            )
            tr._compute_advantage(batch, metrics)
            trained += sorted({k.split("_")[0] for k in batch.keys})
            logged.append(metrics)
            tq.kv_clear(keys=batch.keys, partition_id="train")
        tq.close()
    finally:
        ray.shutdown()

    generated = rollouts.prompts
    evicted = sum(m.get("training/filter_groups/evicted_samples", 0) for m in logged)
    surplus = sum(m.get("training/filter_groups/discarded_surplus_samples", 0) for m in logged)
    assert evicted > 0 and len(trained) == STEPS * BATCH
    # verl's counts: every generated group was trained on, evicted by the filter or surplus
    assert len(generated) == len(trained) + evicted + surplus
    bucket = {u: str(p["info"]["difficulty_bucket"]) for u, p in generated.items()}
    assert not any(bucket[u] in ("0", "4") for u in trained)  # zero variance: never trained

    # the sampler heard every generated group once, the discarded ones included (bar the groups
    # of the one draw not yet whole, held until it is)
    heard_uids = [g for _, _, gids in heard for g in gids[::ROLLOUT_N]]
    held = [row["uid"] for _, row in tr.mixer_sampler._held]
    assert len(set(heard_uids)) == len(heard_uids)
    assert sorted(heard_uids + held[::ROLLOUT_N]) == sorted(generated)
    assert sampler.ledger["rollouts"] + tr.mixer_sampler.held_rollouts == len(generated) * ROLLOUT_N
    assert logged[-1]["mixer/total/rollouts"] == len(generated) * ROLLOUT_N
    assert sum(m["mixer/heard_rollouts"] for m in logged) == len(generated) * ROLLOUT_N
    assert (
        sum(m["mixer/heard_discarded_rollouts"] for m in logged) == (evicted + surplus) * ROLLOUT_N
    )
    learnt_zero = sum(bucket[u] in ("0", "4") for u in heard_uids)
    assert sampler.ledger["zero_advantage_groups"] == learnt_zero > 0
    # each piece learnt was credited to the draws of its rows, each draw once and whole
    infos = {u: p["info"] for u, p in generated.items()}
    credited: list[int] = []
    for wid, rows, gids in heard:
        ids = wid if isinstance(wid, dict) else {wid: 1}
        credited += list(ids)
        for row, uid in zip(rows, gids, strict=True):
            assert infos[uid][ROW_KEY] == row and infos[uid][WEIGHTS_ID_KEY] in ids
            assert row in draws[infos[uid][WEIGHTS_ID_KEY]]
    assert len(credited) == len(set(credited))
    for w in credited:
        assert sum(1 for u in heard_uids if infos[u][WEIGHTS_ID_KEY] == w) == len(draws[w])
    # the source mixer heard groups of the buckets whose every group verl discarded
    hist = sampler.mixer.history
    assert len(hist) == len(heard)
    names = sampler.names
    counts = np.sum([h["counts"] for h in hist], axis=0)
    assert counts.sum() == len(heard_uids)
    for b in ("0", "4"):
        assert counts[names.index(b)] == sum(bucket[u] == b for u in heard_uids) > 0


def test_the_filter_on_the_legacy_trainer_is_refused(verl_export) -> None:
    """verl 0.9's legacy trainer has no group filter: the setting would silently do nothing."""
    from mixer.adapters.verl_main import ConfigError, check_config

    on = ("algorithm.filter_groups.enable=true", "algorithm.filter_groups.metric=reward")
    with pytest.raises(ConfigError, match="legacy trainer ignores it"):
        check_config(_config(verl_export, *on, "trainer.use_v1=false"), cpus=16)
    check_config(_config(verl_export, *on), cpus=16)  # the v1 trainer runs it
