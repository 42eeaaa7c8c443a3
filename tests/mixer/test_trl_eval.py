"""The trainer's own evaluation reaches the mixer (`Feedback.eval_loss`) inside the real
`trl.GRPOTrainer`: the default stack's critic (`acodm-residual` under `FrontierSampler`) learns from
it, a run without eval data is as before, and the value waiting for the next batch survives a
checkpoint."""

from __future__ import annotations

import numpy as np
import pytest
import torch

trl = pytest.importorskip("trl")
pytest.importorskip("transformers")

from datasets import Dataset  # noqa: E402

from mixer import FrontierSampler  # noqa: E402
from mixer.adapters.trl import MixerGRPOTrainer, reward_eval_loss  # noqa: E402
from tests.mixer.test_adapter_trl import _tiny_model_and_tokenizer  # noqa: E402

N = 24
SOURCES = ["easy", "hard", "mid"]


def _reward(completions, source, **kw):
    """Train rows by their source (so a run's draws do not depend on what was generated);
    held-out rows by the share of vowels their completion has (the evaluation moves)."""
    return [
        sum(ch in "aeiou" for ch in c) / max(len(c), 1)
        if s == "heldout"
        else 1.0
        if s == "easy"
        else 0.0
        if s == "hard"
        else float(i % 2)
        for i, (c, s) in enumerate(zip(completions, source, strict=True))
    ]


def _train() -> Dataset:
    src = [SOURCES[i // 8] for i in range(N)]
    return Dataset.from_dict({"prompt": [f"p{i} " for i in range(N)], "source": src})


def _heldout() -> Dataset:
    return Dataset.from_dict({"prompt": [f"q{i} " for i in range(8)], "source": ["heldout"] * 8})


def _trainer(out, eval_dataset=None, max_steps=4, **kw):
    model, tok = _tiny_model_and_tokenizer()
    train = _train()
    sampler = FrontierSampler.from_labels(train["source"], 2, seed=0)  # the default stack
    args_kw = {"save_strategy": "no"}
    if eval_dataset is not None:
        args_kw |= {"eval_strategy": "steps", "eval_steps": 2, "eval_on_start": True}
        args_kw["per_device_eval_batch_size"] = 4
    args_kw |= kw.pop("args", {})
    args = trl.GRPOConfig(
        output_dir=str(out),
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=4,
        max_steps=max_steps,
        report_to=[],
        logging_steps=1,
        use_cpu=True,
        seed=0,
        disable_tqdm=True,
        **args_kw,
    )
    return MixerGRPOTrainer(
        model=model,
        reward_funcs=_reward,
        args=args,
        train_dataset=train,
        eval_dataset=eval_dataset,
        processing_class=tok,
        sampler=sampler,
        **kw,
    )


def _recorded(sampler: FrontierSampler) -> tuple[list, list]:
    """Record each draw and the keywords of each `learn` call."""
    drawn: list[list[int]] = []
    calls: list[dict] = []
    next_batch, learn = sampler.next_batch, sampler.learn

    def rec_next():
        idx = next_batch()
        drawn.append([int(i) for i in idx])
        return idx

    def rec_learn(rows, rewards, **kw):
        calls.append(dict(kw))
        return learn(rows, rewards, **kw)

    sampler.next_batch, sampler.learn = rec_next, rec_learn
    return drawn, calls


def _eval_losses(trainer: MixerGRPOTrainer) -> dict[int, float]:
    """The default held-out loss of each evaluation the run logged, by optimizer step."""
    out = {}
    for rec in trainer.state.log_history:
        if "eval_reward" in rec:
            out[int(rec["step"])] = reward_eval_loss(rec, trainer.mixed_sampler.reward_range)
    return out


def test_each_evaluation_reaches_the_default_critic_with_the_next_batch(tmp_path) -> None:
    tr = _trainer(tmp_path / "run", _heldout())
    drawn, calls = _recorded(tr.mixed_sampler)
    mixer = tr.mixer
    assert mixer.name == "acodm-residual"
    tr.train()
    losses = _eval_losses(tr)
    assert sorted(losses) == [0, 2, 4]  # eval_on_start, then every 2 steps
    assert len({round(v, 12) for v in losses.values()}) > 1, losses  # the evaluation moved
    fed = [c.get("eval_loss") for c in calls]
    # the value before training goes with the first batch, the step-2 one with the third;
    # the step-4 one waits for a batch the run does not train
    assert fed == [losses[0], None, losses[2], None]
    assert [h["eval_loss"] for h in mixer.history] == fed
    assert tr.eval_pending == losses[4]
    # the critic learnt from the drop between the two evaluations it heard
    assert mixer.last_eval == losses[2]
    assert mixer.y_scale == pytest.approx(abs(losses[0] - losses[2]))
    assert np.any(mixer.theta != 0.0)
    assert sum(1 for rec in tr.state.log_history if "mixer/eval_loss" in rec) == 2


def test_without_eval_data_the_run_is_as_before(tmp_path) -> None:
    """No eval dataset: `learn` gets exactly the keywords it always had, the mixer hears no
    evaluation; and the draws and everything the sampler learnt equal those of a run that
    evaluates with the feed off (the feed is the only way an evaluation reaches the mixer)."""
    plain = _trainer(tmp_path / "plain")
    drawn, calls = _recorded(plain.mixed_sampler)
    plain.train()
    assert all(set(c) == {"weights_id", "group_size", "pass_threshold"} for c in calls), calls
    assert all(h["eval_loss"] is None for h in plain.mixer.history)
    assert plain.eval_pending is None

    off = _trainer(tmp_path / "off", _heldout(), feed_eval=False)
    drawn_off, calls_off = _recorded(off.mixed_sampler)
    off.train()
    assert any("eval_reward" in rec for rec in off.state.log_history)  # it did evaluate
    assert drawn_off == drawn
    assert [set(c) for c in calls_off] == [set(c) for c in calls]
    assert off.mixed_sampler.state_dict() == plain.mixed_sampler.state_dict()
    assert off.eval_pending is None

    on = _trainer(tmp_path / "on", _heldout())
    on.train()
    assert on.mixed_sampler.learnt_state() != plain.mixed_sampler.learnt_state()


def test_a_users_eval_loss_fn_gets_the_metrics_and_is_fed(tmp_path) -> None:
    seen: list[dict] = []

    def heldout_error(metrics):
        seen.append(metrics)
        return 1.0 - metrics["eval_rewards/_reward/mean"]

    tr = _trainer(tmp_path / "run", _heldout(), max_steps=1, eval_loss_fn=heldout_error)
    tr.train()
    assert len(seen) == 2 and "eval_reward" in seen[0]  # eval_on_start, and the run's last step
    assert tr.mixer.history[0]["eval_loss"] == 1.0 - seen[0]["eval_rewards/_reward/mean"]
    assert tr.eval_pending == 1.0 - seen[1]["eval_rewards/_reward/mean"]
    with pytest.raises(ValueError, match="feed_eval=False"):
        _trainer(tmp_path / "bad", _heldout(), feed_eval=False, eval_loss_fn=heldout_error)


def test_the_evaluation_waiting_survives_a_checkpoint(tmp_path) -> None:
    """checkpoint-2 is written after the step-2 evaluation and before the batch that hears it:
    the resumed run feeds it as the uninterrupted run did (its own evaluation at the start,
    `eval_on_start`, is replaced by the saved value)."""
    save = {"args": {"save_strategy": "steps", "save_steps": 2}}
    tr = _trainer(tmp_path / "run", _heldout(), **save)
    tr.train()
    losses = _eval_losses(tr)
    ck = tmp_path / "run" / "checkpoint-2"
    assert torch.load(ck / "mixer_state.pt", weights_only=True)["eval_pending"] == losses[2]

    tr2 = _trainer(tmp_path / "run", _heldout(), **save)
    tr2.train(resume_from_checkpoint=str(ck))
    assert tr2.mixer.history == tr.mixer.history
    assert tr2.mixed_sampler.state_dict() == tr.mixed_sampler.state_dict()
    assert tr2.mixer.history[2]["eval_loss"] == losses[2]


def test_several_eval_datasets_give_the_mean_of_their_losses(tmp_path) -> None:
    other = Dataset.from_dict({"prompt": [f"r{i} " for i in range(4)], "source": ["heldout"] * 4})
    tr = _trainer(tmp_path / "run", {"q": _heldout(), "r": other}, max_steps=1)
    tr.train()
    per_set = [
        reward_eval_loss(rec, tr.mixed_sampler.reward_range)
        for rec in tr.state.log_history
        if "eval_reward" in rec and rec["step"] == 0
    ]
    assert len(per_set) == 2  # TRL logs each dataset's evaluation on its own
    assert tr.mixer.history[0]["eval_loss"] == pytest.approx(float(np.mean(per_set)))
