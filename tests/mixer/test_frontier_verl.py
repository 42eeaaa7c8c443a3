"""FrontierSampler through the verl adapter (`data.sampler.problems=frontier`): the prior read from
the rows, per-row scores fed to each problem under a prefetching loader, credited to the draw that
made them, and the learnt state saved and restored by the trainer subclass. verl itself is not
needed (the real-verl checks are in test_adapter_verl*.py); the loader is torch's, with workers."""

from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from mixer import FrontierSampler
from mixer.adapters.verl import (
    MIXER_STATE_FILE,
    PROBLEM_STATE_FILE,
    MixerCurriculumSampler,
    feed_tensordict,
    load_sampler_learning,
    mixer_trainer_class,
    tag_row,
    validation_eval_loss,
)

SOURCES = ["easy", "hard", "mid"]
N = 48


class _Rows(torch.utils.data.Dataset):
    """verl-shaped rows: `data_source`, the build's `difficulty` in `extra_info` (some missing),
    tagged with their index and weights id as `MixerRLHFDataset` does."""

    carries_drawn_rows = True

    def __init__(self, n: int = N, std: bool = True) -> None:
        self.src = [SOURCES[i % 3] for i in range(n)]
        diff = {"easy": 0.1, "hard": 0.9, "mid": 0.5}
        self.info = [
            {
                "difficulty": None if i % 7 == 0 else diff[s],
                **({"difficulty_std": 0.1} if std else {}),
            }
            for i, s in enumerate(self.src)
        ]
        self.dataframe = {"data_source": self.src, "extra_info": self.info}

    def __len__(self) -> int:
        return len(self.src)

    def __getitem__(self, i):
        row = {"input_ids": torch.full((3,), int(i)), "data_source": self.src[int(i)]}
        row["extra_info"] = dict(self.info[int(i)])
        return tag_row(row, i)


def _collate(rows: list[dict]) -> dict:
    out: dict = {}
    for k in rows[0]:
        vals = [r[k] for r in rows]
        out[k] = (
            torch.stack(vals) if isinstance(vals[0], torch.Tensor) else np.array(vals, dtype=object)
        )
    return out


def _config(**sampler):
    return {
        "train_batch_size": 6,
        "seed": 1,
        "dataloader_num_workers": 2,
        "sampler": {"mixer": "advantage-bandit", "problems": "frontier", **sampler},
    }


def _rollout(b: dict, n: int = 4, shuffle: int = 0):
    """n responses per prompt: 'easy' all pass, 'hard' all fail, 'mid' half; rows reordered as
    verl's batch balancing may."""
    infos = np.repeat(b["extra_info"], n)
    src = np.repeat(b["data_source"], n)
    uid = np.repeat(np.array([f"u{x['mixer_row']}" for x in b["extra_info"]], dtype=object), n)
    k = np.tile(np.arange(n), len(b["data_source"]))
    score = np.where(src == "easy", 1.0, np.where(src == "hard", 0.0, (k % 2).astype(float)))
    order = np.random.default_rng(shuffle).permutation(len(score))
    scores = torch.zeros(len(score), 5)
    scores[:, -1] = torch.tensor(score[order], dtype=torch.float32)
    return SimpleNamespace(
        batch={"token_level_scores": scores},
        non_tensor_batch={"extra_info": infos[order], "uid": uid[order], "data_source": src[order]},
    )


def test_verl_frontier_reads_the_prior_and_learns_each_row_under_prefetch() -> None:
    ds = _Rows()
    s = MixerCurriculumSampler(ds, _config())
    fr = s.mixed_sampler
    assert isinstance(fr, FrontierSampler)
    p0 = fr.predicted_pass_rate(np.arange(N))
    easy = np.array([i for i in range(N) if i % 3 == 0 and i % 7])
    hard = np.array([i for i in range(N) if i % 3 == 1 and i % 7])
    assert p0[easy].min() > p0[hard].max()  # the prior orders them before any rollout
    drawn: list[int] = []
    next_batch = fr.next_batch

    def rec():
        out = next_batch()
        drawn.append(fr.last_weights_id)
        return out

    fr.next_batch = rec
    dl = torch.utils.data.DataLoader(
        ds, batch_size=6, sampler=s, collate_fn=_collate, num_workers=2, prefetch_factor=2
    )
    lagged = 0
    for step, b in enumerate(dl):
        if step == 6:
            break
        wid = int(b["extra_info"][0]["mixer_weights_id"])
        lagged += wid != drawn[-1]
        s.update(_rollout(b, shuffle=step))
    assert lagged > 0  # the loader ran ahead: the latest draw was not the batch being scored
    assert fr.ledger["updates"] == 6 and fr.ledger["rollouts"] == 6 * 6 * 4
    assert fr.ledger["groups"] == 36  # groups by uid, though the rows were reordered
    hist = s.mixer.history
    assert [h["weights_id"] for h in hist] == drawn[:6]
    p1 = fr.predicted_pass_rate(np.arange(N))
    assert (p1[easy] > p0[easy]).all() and (p1[hard] < p0[hard]).all()


def test_verl_problem_sampler_refuses_rows_without_their_index_and_filters() -> None:
    class Plain(_Rows):
        carries_drawn_rows = False

    cfg = _config()
    cfg["dataloader_num_workers"] = 0
    with pytest.raises(ValueError, match="MixerRLHFDataset"):
        MixerCurriculumSampler(Plain(), cfg)
    with pytest.raises(ValueError, match="drops groups"):
        MixerCurriculumSampler(_Rows(), _config(problems="dapo"))
    with pytest.raises(ValueError, match="unknown problem sampler"):
        MixerCurriculumSampler(_Rows(), _config(problems="nope"))
    with pytest.raises(KeyError, match="difficulty_key"):
        MixerCurriculumSampler(_Rows(), _config(difficulty_key="rating"))
    # the std is optional unless named; no prior at all with difficulty_key null
    assert isinstance(
        MixerCurriculumSampler(_Rows(std=False), _config()).mixed_sampler, FrontierSampler
    )
    with pytest.raises(KeyError):
        MixerCurriculumSampler(_Rows(std=False), _config(difficulty_std_key="difficulty_std"))
    flat = MixerCurriculumSampler(_Rows(), _config(difficulty_key=None)).mixed_sampler
    p = flat.predicted_pass_rate(np.arange(N))
    assert np.allclose(p[0::3], p[0]) and np.allclose(p, p[0])  # every source at the same mean


class _TD:
    """The fields verl's v1 trainer reads back from its transfer queue, per response."""

    def __init__(self, d: dict) -> None:
        self.d = d

    def __getitem__(self, k):
        return self.d[k]

    def __len__(self) -> int:
        return len(self.d["uid"])

    def keys(self):
        return self.d.keys()


def test_v1_feed_tensordict_reaches_the_problem_sampler() -> None:
    cfg = _config()
    cfg["dataloader_num_workers"] = 0
    ds = _Rows()
    s = MixerCurriculumSampler(ds, cfg)
    idx = list(iter(s))[:6]
    b = _collate([ds[i] for i in idx])
    r = _rollout(b)
    feed_tensordict(
        _TD(
            {
                "rm_scores": r.batch["token_level_scores"],
                "uid": list(r.non_tensor_batch["uid"]),
                "extra_info": list(r.non_tensor_batch["extra_info"]),
            }
        ),
        s,
    )
    assert s.mixed_sampler.ledger["rollouts"] == 24 and len(s.mixer.history) == 1


def test_verl_trainer_subclass_saves_and_restores_what_the_sampler_learnt(tmp_path) -> None:
    """verl's loader snapshots the sampler when it draws, before that batch's scores arrive; the
    trainer subclass saves the learnt part at checkpoint time and restores it after the loader."""
    cfg = _config()
    cfg["dataloader_num_workers"] = 0
    ds = _Rows()

    class Base:
        def __init__(self, sampler) -> None:
            self.train_dataloader = SimpleNamespace(sampler=sampler)
            self.config = SimpleNamespace(
                trainer=SimpleNamespace(
                    resume_mode="auto",
                    resume_from_path=None,
                    default_local_dir=str(tmp_path),
                    critic_warmup=0,
                )
            )
            self.global_steps = 0
            self.loader_state = None

        def _update_actor(self, batch):
            return None

        def _save_checkpoint(self) -> None:
            self.loader_state = self.train_dataloader.sampler.state_dict()

        def _load_checkpoint(self):
            self.train_dataloader.sampler.load_state_dict(self.snapshot)

    Trainer = mixer_trainer_class(Base)
    s = MixerCurriculumSampler(ds, cfg)
    tr = Trainer(s)
    it = iter(s)
    snapshot = None
    for step in range(1, 5):
        idx = [next(it) for _ in range(6)]
        if step == 4:
            snapshot = s.state_dict()  # the loader's snapshot: drawn, not yet learnt from
        tr.global_steps = step
        tr._update_actor(_rollout(_collate([ds[i] for i in idx]), shuffle=step))
    tr._save_checkpoint()
    # one file, the sampler's whole learnt state (mixer included)
    saved = torch.load(tmp_path / "global_step_4" / MIXER_STATE_FILE, weights_only=True)
    assert saved["format"] == "codemix.learnt/1" and {"mixer", "ledger", "sampler"} <= set(saved)
    assert not os.path.exists(tmp_path / "global_step_4" / PROBLEM_STATE_FILE)
    s2 = MixerCurriculumSampler(ds, cfg)
    tr2 = Trainer(s2)
    tr2.snapshot, tr2.global_steps = snapshot, 4
    tr2._load_checkpoint()
    assert s2.mixed_sampler.ledger == s.mixed_sampler.ledger
    np.testing.assert_array_equal(
        s2.mixed_sampler.predicted_pass_rate(np.arange(N)),
        s.mixed_sampler.predicted_pass_rate(np.arange(N)),
    )
    assert s2.mixer.history == s.mixer.history
    # a checkpoint written before 0.2 (the mixer's state, the problems' in a second file) resumes
    old = tmp_path / "old"
    old.mkdir()
    torch.save(s.mixer.state_dict(), old / MIXER_STATE_FILE)
    torch.save({k: saved[k] for k in ("ledger", "sampler")}, old / PROBLEM_STATE_FILE)
    s3 = MixerCurriculumSampler(ds, cfg)
    s3.load_state_dict(snapshot)
    load_sampler_learning(s3, str(old))
    assert s3.mixed_sampler.ledger == s.mixed_sampler.ledger and s3.mixer.history == s.mixer.history
    np.testing.assert_array_equal(
        s3.mixed_sampler.predicted_pass_rate(np.arange(N)),
        s.mixed_sampler.predicted_pass_rate(np.arange(N)),
    )


def test_verl_validation_reaches_the_default_critic_and_the_checkpoint(tmp_path) -> None:
    """The legacy trainer subclass gives each validation to the sampler, which feeds it to the
    default stack's critic with the next step's feedback and keeps the value waiting in the
    checkpoint. The trainer below stands in for verl's `RayPPOTrainer` (verl is not a
    dependency): what its `fit` calls, in its order (the update, then the validation, then the
    checkpoint), and its `_validate`'s metric names (`val-core/<data_source>/<var>/mean@N`)."""
    ds = _Rows()
    cfg = {"train_batch_size": 6, "seed": 1, "sampler": {"problems": "frontier"}}
    scores = iter([0.40, 0.55, 0.62])  # the validation set's mean score before step 1, after 2, 4

    class Base:
        def __init__(self, sampler) -> None:
            self.train_dataloader = SimpleNamespace(sampler=sampler)
            self.config = SimpleNamespace(
                trainer=SimpleNamespace(
                    resume_mode="auto",
                    resume_from_path=None,
                    default_local_dir=str(tmp_path),
                    critic_warmup=0,
                )
            )
            self.global_steps = 0

        def _update_actor(self, batch):
            return None

        def _validate(self):
            r = next(scores)
            return {  # "acc" beside "reward": the reward is read; the largest N
                "val-core/heldout/reward/mean@4": r,
                "val-core/heldout/reward/mean@2": 0.0,
                "val-core/heldout/acc/mean@4": 0.0,
                "val-aux/heldout/reward/std@4": 0.1,
            }

        def _save_checkpoint(self) -> None:
            pass

        def _load_checkpoint(self):
            pass

    Trainer = mixer_trainer_class(Base)
    s = MixerCurriculumSampler(ds, cfg)
    assert s.mixer.name == "acodm-residual"
    tr = Trainer(s)
    it = iter(s)
    tr._validate()  # val_before_train
    for step in range(1, 5):
        tr.global_steps = step
        tr._update_actor(_rollout(_collate([ds[next(it)] for _ in range(6)])))
        if step % 2 == 0:
            tr._validate()
            tr._save_checkpoint()
    fed = [h["eval_loss"] for h in s.mixer.history]
    assert fed == [pytest.approx(0.60), None, pytest.approx(0.45), None]  # 1 - mean score
    assert s.eval_pending == pytest.approx(0.38)  # after the last step: waits
    assert s.mixer.last_eval == pytest.approx(0.45)
    assert s.mixer.y_scale == pytest.approx(0.15)  # the critic learnt from the drop
    saved = torch.load(tmp_path / "global_step_2" / MIXER_STATE_FILE, weights_only=True)
    assert saved["eval_pending"] == pytest.approx(0.45)
    s2 = MixerCurriculumSampler(ds, cfg)
    load_sampler_learning(s2, str(tmp_path / "global_step_2"))
    assert s2.eval_pending == pytest.approx(0.45)

    # data.sampler.feed_validation=false: the validations do not reach the mixer
    off = MixerCurriculumSampler(
        ds, {**cfg, "sampler": {**cfg["sampler"], "feed_validation": False}}
    )
    scores = iter([0.40, 0.55])
    tr = Trainer(off)
    it = iter(off)
    tr._validate()
    tr._update_actor(_rollout(_collate([ds[next(it)] for _ in range(6)])))
    assert off.eval_pending is None and off.mixer.history[0]["eval_loss"] is None


def test_verl_validation_metrics_as_a_held_out_loss() -> None:
    assert validation_eval_loss(
        {"val-core/a/reward/mean@8": 0.2, "val-core/b/acc/mean@8": 0.6}
    ) == (
        pytest.approx(0.6)  # each data source's mean score, averaged: 1 - 0.4
    )
    assert validation_eval_loss({"val-core/a/reward/mean@1": 2.0}, (0.0, 4.0)) == 0.5
    assert validation_eval_loss({"val-aux/a/reward/std@8": 0.2, "timing/val": 3.0}) is None
    with pytest.raises(ValueError, match="low < high"):  # not a division by zero
        validation_eval_loss({"val-core/a/reward/mean@1": 1.0}, (1.0, 1.0))
