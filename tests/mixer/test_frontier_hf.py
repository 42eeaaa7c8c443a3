"""A problem sampler under the real `transformers.Trainer` (`MixerTrainer` with a reward computed in
`compute_loss`, as a user's own RL-style trainer would): `MixerCallback.push_rewards` gives each
optimizer step's micro-batches to `sampler.update` once, credited to the draws that made them,
with loader workers; a resumed run continues exactly."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")

from mixer import FrontierSampler, make_mixer  # noqa: E402
from mixer.adapters.hf import MixerTrainer  # noqa: E402
from mixer.adapters.torch import ROW_KEY, WEIGHTS_ID_KEY  # noqa: E402
from tests.mixer.test_adapter_hf import _data  # noqa: E402


class RewardTrainer(MixerTrainer):
    """LM loss for the update; a 'verifier' reward per row (1 for the easy rows, 0 for the noisy)."""

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):  # noqa: ANN001
        from mixer.adapters.hf import causal_lm_sample_loss

        rows = inputs.pop(ROW_KEY).cpu().numpy()
        wids = inputs.pop(WEIGHTS_ID_KEY).reshape(-1).tolist()
        inputs.pop("row_index", None)
        out = model(input_ids=inputs["input_ids"])
        per_sample = causal_lm_sample_loss(out.logits, inputs["input_ids"])
        if model.training:
            assert len(set(wids)) == 1  # one micro-batch is one draw
            self.mixer_callback.push_rewards(rows, (rows % 2 == 0).astype(float), wids[0])
        return per_sample.mean()


def _trainer(out, sampler, max_steps=6, **kw):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, TrainingArguments, default_data_collator

    torch.manual_seed(0)
    model = GPT2LMHeadModel(
        GPT2Config(vocab_size=32, n_positions=16, n_embd=16, n_layer=1, n_head=2)
    )
    ds, _ = _data()
    args = TrainingArguments(
        output_dir=str(out),
        per_device_train_batch_size=4,
        gradient_accumulation_steps=2,
        max_steps=max_steps,
        learning_rate=1e-2,
        report_to=[],
        use_cpu=True,
        logging_steps=1,
        disable_tqdm=True,
        seed=0,
        **{"save_strategy": "steps", "save_steps": 3, **kw},
    )
    return RewardTrainer(
        model=model,
        args=args,
        train_dataset=ds,
        data_collator=default_data_collator,
        sampler=sampler,
    )


def _sampler() -> FrontierSampler:
    _, labels = _data()
    mixer = make_mixer("advantage-bandit", 2, names=["easy", "noisy"], seed=0)
    return FrontierSampler.from_labels(labels, batch_size=4, mixer=mixer, seed=0)


def test_hf_push_rewards_updates_the_problems_once_per_step_with_the_draws_ids(tmp_path) -> None:
    s = _sampler()
    drawn: list[int] = []
    next_batch = s.next_batch

    def rec():
        out = next_batch()
        drawn.append(s.last_weights_id)
        return out

    s.next_batch = rec
    p0 = s.predicted_pass_rate(np.arange(40))
    tr = _trainer(tmp_path / "run", s, save_strategy="no", dataloader_num_workers=2)
    tr.train()
    assert s.ledger["updates"] == 6 and s.ledger["rollouts"] == 6 * 2 * 4
    hist = s.mixer.history
    assert len(hist) == 6
    # each step is credited to its two micro-batches' draws, in order
    assert [sorted(int(k) for k in h["weights_id"]) for h in hist] == [
        drawn[2 * i : 2 * i + 2] for i in range(6)
    ]
    p1 = s.predicted_pass_rate(np.arange(40))
    assert (p1[0::2] > p0[0::2]).all() and (p1[1::2] < p0[1::2]).all()


def test_hf_resume_continues_the_problem_sampler_exactly(tmp_path) -> None:
    tr = _trainer(tmp_path / "run", _sampler())
    tr.train()
    tr2 = _trainer(tmp_path / "run", _sampler())
    tr2.train(resume_from_checkpoint=str(tmp_path / "run" / "checkpoint-3"))
    a, b = tr.mixed_sampler, tr2.mixed_sampler
    assert b.ledger == a.ledger and b.mixer.history == a.mixer.history
    np.testing.assert_array_equal(
        b.predicted_pass_rate(np.arange(40)), a.predicted_pass_rate(np.arange(40))
    )


def test_push_rewards_feeds_a_plain_sampler_through_the_same_learning_call(tmp_path) -> None:
    """Rewards pushed for a plain `MixedSampler` reach its mixer as per-source feedback at the
    step's end (one learning call for every sampler; it needed a ProblemSampler before)."""
    from types import SimpleNamespace

    from mixer import MixedSampler
    from mixer.adapters.hf import MixerCallback

    _, labels = _data()
    sampler = MixedSampler.from_labels(labels, batch_size=4, mixer=make_mixer("uniform", 2))
    sampler.next_batch()
    cb = MixerCallback(sampler)
    rows = np.array([0, 0, 1, 1])  # two completions each of rows 0 ("easy") and 1 ("noisy")
    cb.push_rewards(rows, [1.0, 0.0, 1.0, 1.0], sampler.last_weights_id, group_ids=rows)
    cb.on_step_end(None, SimpleNamespace(), None)
    (h,) = sampler.mixer.history
    assert h["counts"] == [1.0, 1.0] and h["reward"] == [0.5, 1.0]
    assert h["pass_rate"] == [0.5, 1.0] and h["weights_id"] == sampler.last_weights_id
