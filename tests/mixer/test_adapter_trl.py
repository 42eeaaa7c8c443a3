"""The TRL adapter against the real `trl.GRPOTrainer` (a tiny GPT-2 and tokenizer built offline)."""

from __future__ import annotations

import numpy as np
import pytest

trl = pytest.importorskip("trl")
transformers = pytest.importorskip("transformers")

from datasets import Dataset  # noqa: E402
from trl.trainer.utils import RepeatSampler  # noqa: E402

from mixer import MixedSampler, Static, make_mixer  # noqa: E402
from mixer.adapters.trl import MixerGRPOTrainer, MixerRepeatSampler  # noqa: E402


def _tiny_model_and_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {
        c: i for i, c in enumerate(["<pad>", "<eos>", *"abcdefghijklmnopqrstuvwxyz0123456789 "])
    }
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<pad>"))
    tk.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="<eos>")
    cfg = GPT2Config(
        vocab_size=len(vocab),
        n_positions=64,
        n_embd=16,
        n_layer=1,
        n_head=2,
        bos_token_id=1,
        eos_token_id=1,
        pad_token_id=0,
    )
    import torch

    torch.manual_seed(0)
    return GPT2LMHeadModel(cfg), tok


def _reward(completions, source, **kw):
    """Only 'mid' prompts get a mixed group (reward 0 then 1): the only source with |advantage| > 0."""
    return [float(s == "mid") * (i % 2) for i, s in enumerate(source)]


def _trainer(out, max_steps=4, mixer="advantage-bandit", batch=4, **args_kw):
    model, tok = _tiny_model_and_tokenizer()
    ds = Dataset.from_dict(
        {"prompt": [f"p{i} " for i in range(24)], "source": ["easy", "hard", "mid"] * 8}
    )
    args = trl.GRPOConfig(
        output_dir=str(out),
        per_device_train_batch_size=batch,
        num_generations=2,
        max_completion_length=3,
        max_steps=max_steps,
        report_to=[],
        logging_steps=1,
        use_cpu=True,
        seed=0,
        disable_tqdm=True,
        **{"save_strategy": "steps", "save_steps": 2, **args_kw},
    )
    return MixerGRPOTrainer(
        model=model,
        reward_funcs=_reward,
        args=args,
        train_dataset=ds,
        processing_class=tok,
        mixer=mixer,
    )


def test_repeat_layout_matches_trl_repeat_sampler() -> None:
    data = list(range(12))
    ref = list(RepeatSampler(data, mini_repeat_count=2, batch_size=3, repeat_count=2, seed=0))
    ms = MixedSampler({"a": range(6), "b": range(6, 12)}, batch_size=3, mixer=Static(2), seed=0)
    ours = list(MixerRepeatSampler(ms, mini_repeat_count=2, repeat_count=2))
    assert len(ours) == len(ref) == len(MixerRepeatSampler(ms, 2, 2))

    def layout(stream):
        chunks = [stream[i : i + 12] for i in range(0, len(stream), 12)]
        for c in chunks:
            assert c[:6] == c[6:]  # chunk repeated repeat_count times
            assert c[0:6:2] == c[1:6:2]  # each prompt mini_repeat_count times in a row
            assert len(set(c)) == 3
        return len(chunks)

    assert layout(ours) == layout(ref)


def test_grpo_trainer_feeds_the_mixer_and_checkpoints_it(tmp_path) -> None:
    tr = _trainer(tmp_path / "run")
    assert isinstance(tr._get_train_sampler(), MixerRepeatSampler)
    tr.train()
    hist = tr.mixer.history
    assert len(hist) == 4  # one update per generation batch
    assert all(sum(h["counts"]) == 2 for h in hist)  # 4 completions / 2 generations = 2 prompts
    w = tr.mixer.weights()
    assert tr.mixed_sampler.names[int(np.argmax(w))] == "mid", w
    ck = tmp_path / "run" / "checkpoint-2" / "mixer_state.pt"
    assert ck.is_file()

    # resume from step 2: the mixer and sampler continue exactly as in the uninterrupted run
    tr2 = _trainer(tmp_path / "run")
    tr2.train(resume_from_checkpoint=str(tmp_path / "run" / "checkpoint-2"))
    assert tr2.mixer.history == hist
    assert tr2.mixed_sampler.state_dict() == tr.mixed_sampler.state_dict()
    assert tr2.repeat_sampler.pending == []


def test_each_generation_batch_is_credited_to_the_weights_that_drew_it(tmp_path) -> None:
    """TRL's loader draws the next generation batch before the mixer learns from the current one:
    the history must record the weights that drew each batch, and each batch's prompts per source
    must follow those weights (stochastic rounding: floor or ceil of weight x prompts)."""
    names = ["easy", "hard", "mid"]
    mixer = make_mixer("advantage-bandit", 3, names=names, seed=0)
    drew: dict[int, np.ndarray] = {}
    issue = mixer.issue

    def recorded():
        wid, w = issue()
        drew[wid] = w.copy()
        return wid, w

    mixer.issue = recorded
    current: list[np.ndarray] = []  # the mixer's weights when each feedback arrives
    update = mixer.update

    def recorded_update(fb):
        current.append(mixer.weights().copy())
        update(fb)

    mixer.update = recorded_update
    tr = _trainer(tmp_path / "run", max_steps=8, mixer=mixer, batch=6, save_strategy="no")
    tr.train()
    hist = mixer.history
    assert len(hist) == 8
    lagged = 0
    for rec, now in zip(hist, current, strict=True):
        w = drew[rec["weights_id"]]
        np.testing.assert_array_equal(rec["weights"], w)
        n = np.asarray(rec["counts"])
        assert n.sum() == 3 and (n >= np.floor(w * 3)).all() and (n <= np.ceil(w * 3)).all()
        lagged += not np.array_equal(w, now)
    # some batches were drawn before the previous update: crediting the current weights was wrong
    assert lagged > 0
    assert mixer.weights()[names.index("mid")] > 0.5


def test_codemix_rewards_and_mixer_in_grpo_on_a_trl_export(demo_build, tmp_path) -> None:
    """`codemix export --format trl` of the demo build, mixed by `difficulty_bucket`, with our
    `trl_correctness_reward` graded in TRL's loop next to a signal only bucket 0 gets."""
    import subprocess
    import sys

    from datasets import load_from_disk
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    from filters.reward import trl_correctness_reward

    cli = [sys.executable, "-c", "from curation.cli import main; main()"]
    subprocess.run(
        [*cli, "export", str(demo_build), "--format", "trl", "--out", str(tmp_path / "trl")],
        check=True,
        capture_output=True,
    )
    train = load_from_disk(str(tmp_path / "trl"))["train"]
    chars = [chr(i) for i in range(32, 127)] + ["\n"]
    tk = Tokenizer(
        models.WordLevel(
            vocab={c: i for i, c in enumerate(["<pad>", "<eos>", *chars])}, unk_token="<pad>"
        )
    )
    tk.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tk.decoder = decoders.Fuse()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="<eos>")
    tok.chat_template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    import torch

    torch.manual_seed(0)
    model = GPT2LMHeadModel(
        GPT2Config(
            vocab_size=len(chars) + 2,
            n_positions=1024,
            n_embd=16,
            n_layer=1,
            n_head=2,
            bos_token_id=1,
            eos_token_id=1,
            pad_token_id=0,
        )  # fmt: skip
    )
    graded: list = []

    def correctness(**kw):
        out = trl_correctness_reward(**kw)
        graded.extend(out)
        return out

    def bucket_signal(completions, difficulty_bucket, **kw):
        return [float(b == 0) * (i % 2) for i, b in enumerate(difficulty_bucket)]

    steps = 4
    tr = MixerGRPOTrainer(
        model=model,
        reward_funcs=[correctness, bucket_signal],
        args=trl.GRPOConfig(
            output_dir=str(tmp_path / "run"),
            per_device_train_batch_size=6,
            num_generations=2,
            max_completion_length=8,
            max_steps=steps,
            report_to=[],
            use_cpu=True,
            save_strategy="no",
            seed=0,
            disable_tqdm=True,
            logging_steps=100,
        ),  # fmt: skip
        train_dataset=train,
        processing_class=tok,
        mixer="advantage-bandit",
        source_column="difficulty_bucket",
    )
    assert tr.mixed_sampler.names == ["0", "1", "2", "3", "4"]
    tr.train()
    hist = tr.mixer.history
    assert len(hist) == steps and all(sum(h["counts"]) == 3 for h in hist)
    assert len(graded) == steps * 6 and all(g in (0.0, 1.0) for g in graded)  # no sandbox fault
    assert int(np.argmax(tr.mixer.weights())) == 0


def test_the_private_trl_methods_the_adapter_overrides_are_as_tested() -> None:
    """The installed TRL has every private method MixerGRPOTrainer overrides or calls, with the
    parameters it was written against; the extra's bound accepts only the tested TRL release."""
    import tomllib
    from pathlib import Path

    from mixer.adapters.trl import TESTED_TRL, TRL_OVERRIDES, check_trl_seams

    assert check_trl_seams() == [], "TRL changed a method MixerGRPOTrainer overrides or calls"
    assert trl.__version__.startswith(TESTED_TRL + ".")
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    major, minor = TESTED_TRL.split(".")
    assert pyproject["project"]["optional-dependencies"]["trl"] == [
        f"trl>={TESTED_TRL},<{major}.{int(minor) + 1}"
    ]
    assert {"_calculate_rewards", "_generate_and_score_completions"} <= set(TRL_OVERRIDES)


def test_a_trl_release_that_changes_an_overridden_method_is_refused_naming_it(
    tmp_path, monkeypatch
) -> None:
    """A GRPOTrainer whose `_calculate_rewards` takes other parameters, or that lost
    `_generate_and_score_completions` (as a TRL release could): the check names the method, and
    the trainer refuses to start, naming it."""
    import inspect

    from mixer.adapters import trl as adapter
    from mixer.adapters.trl import check_trl_seams

    class Renamed(trl.GRPOTrainer):
        def _calculate_rewards(self, inputs, prompts, completions, completion_ids):  # noqa: ANN001
            return None

    got = check_trl_seams(Renamed)
    assert (
        len(got) == 1 and got[0].startswith("_calculate_rewards(") and "completion_ids)" in got[0]
    )
    members = dict(inspect.getmembers(trl.GRPOTrainer))
    members.pop("_generate_and_score_completions")
    gone = type("Gone", (), members)
    assert check_trl_seams(gone) == ["_generate_and_score_completions is gone"]
    # the trainer itself refuses, naming the method (the check reads the class it subclasses)
    monkeypatch.setattr(adapter, "GRPOTrainer", Renamed)
    with pytest.raises(RuntimeError, match=r"tested with TRL 1\.16.*_calculate_rewards\("):
        _trainer(tmp_path / "run")
