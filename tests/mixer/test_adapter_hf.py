"""The Hugging Face adapter against the real `transformers.Trainer` (tiny GPT-2 built offline)."""

from __future__ import annotations

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")

from datasets import Dataset  # noqa: E402

from mixer import Feedback, MixedSampler, make_mixer  # noqa: E402
from mixer.adapters.hf import MixerTrainer, merge_feedback  # noqa: E402


def _data(n=40, length=12):
    rng = np.random.default_rng(0)
    rows, labels = [], []
    for i in range(n):
        if i % 2 == 0:
            ids = [3] * length  # "easy": one repeated token
            labels.append("easy")
        else:
            ids = rng.integers(2, 30, length).tolist()  # "noisy": random tokens, high loss
            labels.append("noisy")
        rows.append({"input_ids": ids, "row_index": i})
    return Dataset.from_list(rows), labels


def _trainer(out, max_steps=8, **args_kw):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, TrainingArguments, default_data_collator

    torch.manual_seed(0)
    model = GPT2LMHeadModel(
        GPT2Config(vocab_size=32, n_positions=16, n_embd=16, n_layer=1, n_head=2)
    )
    ds, labels = _data()
    mixer = make_mixer("odm", 2, variant="smoothed-mean", names=["easy", "noisy"], seed=0)
    sampler = MixedSampler.from_labels(labels, batch_size=4, mixer=mixer, seed=0)
    args_kw = {"save_strategy": "steps", "save_steps": 4, **args_kw}
    args = TrainingArguments(
        output_dir=str(out),
        per_device_train_batch_size=4,
        max_steps=max_steps,
        learning_rate=1e-2,
        report_to=[],
        use_cpu=True,
        logging_steps=1,
        disable_tqdm=True,
        seed=0,
        **args_kw,
    )
    return MixerTrainer(
        model=model,
        args=args,
        train_dataset=ds,
        data_collator=default_data_collator,
        sampler=sampler,
    )


def test_merge_feedback_weights_by_counts() -> None:
    a = Feedback(counts=[2, 0], loss=[1.0, np.nan], weights_id=7)
    b = Feedback(counts=[2, 2], loss=[3.0, 5.0], weights_id=8)
    m = merge_feedback([a, b])
    assert m.counts.tolist() == [4, 2] and m.loss.tolist() == [2.0, 5.0]
    assert m.weights_id == {7: 2.0, 8: 4.0}  # each draw with its share of the examples


def _recording(mixer):
    drew: dict[int, np.ndarray] = {}
    issue = mixer.issue

    def recorded():
        wid, w = issue()
        drew[wid] = w.copy()
        return wid, w

    mixer.issue = recorded
    return drew


def test_workers_and_accumulation_credit_the_weights_that_drew_each_step(tmp_path) -> None:
    """Two loader workers (prefetch 2 each) and 2 micro-batches per step: the loader draws several
    batches ahead, and each step is credited to the weights that drew its micro-batches."""
    tr = _trainer(
        tmp_path / "run",
        max_steps=6,
        dataloader_num_workers=2,
        gradient_accumulation_steps=2,
        save_strategy="no",
    )
    mixer = tr.mixed_sampler.mixer
    drew = _recording(mixer)
    tr.train()
    assert len(mixer.history) == 6
    lagged = 0
    for rec in mixer.history:
        shares = rec["weights_id"]
        assert isinstance(shares, dict) and sum(shares.values()) == 8  # two micro-batches of 4
        expect = sum(drew[int(k)] * v / 8 for k, v in shares.items())
        np.testing.assert_allclose(rec["weights"], expect, rtol=0, atol=1e-15)
        lagged += not np.allclose(expect, drew[max(drew)])
    assert lagged > 0


def test_trainer_mixes_by_loss_and_resumes_exactly(tmp_path) -> None:
    tr = _trainer(tmp_path / "run")
    tr.train()
    mixer = tr.mixed_sampler.mixer
    assert len(mixer.history) == 8
    assert all(sum(h["counts"]) == 4 for h in mixer.history)
    assert mixer.weights()[1] > 0.6  # the noisy, high-loss source
    assert (tmp_path / "run" / "checkpoint-4" / "mixer_state.pt").is_file()
    tr2 = _trainer(tmp_path / "run")
    tr2.train(resume_from_checkpoint=str(tmp_path / "run" / "checkpoint-4"))
    assert [h["counts"] for h in tr2.mixed_sampler.mixer.history] == [
        h["counts"] for h in mixer.history
    ]
    assert tr2.mixed_sampler.state_dict()["rng"] == tr.mixed_sampler.state_dict()["rng"]


def test_a_sampler_of_other_rows_is_refused_and_acodm_hears_max_steps(tmp_path, caplog) -> None:
    """The HF seams: a sampler grouped by another labelling of the rows is refused by its grouping
    column before training; a matching one tells ACODM the run's `max_steps` at the first step
    and logs the start-up line."""
    import logging

    from datasets import Dataset

    from mixer.rows import RowMismatch

    tr = _trainer(tmp_path / "ok", max_steps=6)
    ds, labels = _data()
    with_labels = ds.add_column("source", labels)
    flipped = with_labels.map(lambda r: {"source": "noisy" if r["source"] == "easy" else "easy"})
    sampler = MixedSampler.from_dataset(with_labels, 4, mixer=make_mixer("acodm", 2), seed=0)
    with pytest.raises(RowMismatch, match="another 'source'"):
        MixerTrainer(model=tr.model, args=tr.args, train_dataset=flipped, sampler=sampler)
    with pytest.raises(RowMismatch, match="up to 39 but train_dataset has 20 rows"):
        MixerTrainer(
            model=tr.model, args=tr.args, train_dataset=Dataset.from_dict(ds[:20]), sampler=sampler
        )
    from transformers import default_data_collator

    trainer = MixerTrainer(
        model=tr.model, args=tr.args, train_dataset=with_labels.remove_columns("source"),
        data_collator=default_data_collator, sampler=sampler,
    )  # fmt: skip
    logger = logging.getLogger("codemix.mixer")
    logger.addHandler(caplog.handler)
    try:
        trainer.train()
    finally:
        logger.removeHandler(caplog.handler)
    assert sampler.mixer.horizon == 6 and sampler.mixer.horizon_origin.startswith("HF Trainer")
    lines = [r.getMessage() for r in caplog.records]
    assert any("mixing with acodm over 2 sources (easy 20, noisy 20)" in x for x in lines), lines
    assert not any("assuming horizon" in x for x in lines)  # no guess: the length was told


def test_callback_and_trainer_name_their_sampler_mixed_sampler(tmp_path) -> None:
    """One attribute name for the sampler an adapter drives; the callback's old `sampler` reads it."""
    tr = _trainer(str(tmp_path), max_steps=1)
    cb = tr.mixer_callback
    assert cb.mixed_sampler is tr.mixed_sampler is tr.index_sampler.mixed_sampler
    assert cb.sampler is cb.mixed_sampler and tr.index_sampler.sampler is tr.mixed_sampler
    with pytest.raises(AttributeError):
        cb.sampler = tr.mixed_sampler
