"""The seams a new user hits between codemix's samplers and a real trainer, on the demo build and its
`codemix export --format trl` with a held-out split (the documented TRL path): rows checked by
problem id, the scorer fed the prompt TRL generates from, the run's length passed to the mixer, and
a start-up line that says the mixer is active."""

from __future__ import annotations

import logging

import numpy as np
import pytest

trl = pytest.importorskip("trl")
pytest.importorskip("transformers")

from mixer import ACODM, FrontierSampler, MixedSampler, make_mixer  # noqa: E402
from mixer.adapters.trl import MixerGRPOTrainer  # noqa: E402
from mixer.rows import RowMismatch, check_rows  # noqa: E402


def _char_model(vocab_extra: int = 0):
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    chars = [chr(i) for i in range(32, 127)] + ["\n"]
    vocab = {c: i for i, c in enumerate(["<pad>", "<eos>", "<bos>", *chars])}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<pad>"))
    tk.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tk.decoder = decoders.Fuse()
    tok = PreTrainedTokenizerFast(
        tokenizer_object=tk, pad_token="<pad>", eos_token="<eos>", bos_token="<bos>"
    )
    # a template whose rendering differs from the bare statement (a role tag and a generation cue)
    tok.chat_template = (
        "{{ bos_token }}{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}{% endfor %}"
        "{% if add_generation_prompt %}<a>{% endif %}"
    )
    torch.manual_seed(0)
    model = GPT2LMHeadModel(
        GPT2Config(vocab_size=len(vocab), n_positions=2048, n_embd=16, n_layer=1, n_head=2,
                   bos_token_id=2, eos_token_id=1, pad_token_id=0)
    )  # fmt: skip
    return model, tok


def _args(out, max_steps=3, **kw):
    base = dict(
        output_dir=str(out),
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=4,
        max_steps=max_steps,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
        seed=0,
        disable_tqdm=True,
        logging_steps=100,
    )
    return trl.GRPOConfig(**{**base, **kw})


def _reward(completions, **kw):
    return [float(i % 2) for i in range(len(completions))]


def test_a_sampler_of_the_build_is_refused_for_an_export_with_a_held_out_split(demo, tmp_path):
    """The documented pairing before: `from_shards(BUILD)` (45 rows) with the export's train split
    (36 rows) silently drew other problems. Now one line says so, and `from_dataset` of the
    trainer's own split is accepted."""
    build, train = demo
    wrong = FrontierSampler.from_shards(build, batch_size=2, seed=0)
    with pytest.raises(RowMismatch, match=r"not train_dataset's: .*from_dataset\(train_dataset"):
        check_rows(wrong, train, where="train_dataset")
    model, tok = _char_model()
    with pytest.raises(RowMismatch, match="train_dataset"):
        MixerGRPOTrainer(
            model=model, reward_funcs=_reward, args=_args(tmp_path / "a"), train_dataset=train,
            processing_class=tok, sampler=wrong,
        )  # fmt: skip
    right = FrontierSampler.from_dataset(train, batch_size=2, seed=0)
    check_rows(right, train)
    assert right.row_ids == list(train["problem_id"])
    # the prior is the export's difficulty, row for row
    got = right.predicted_pass_rate(np.arange(len(train)))
    d = np.asarray(train["difficulty"], dtype=float)
    assert np.corrcoef(got, -d)[0, 1] > 0.9


def test_a_shuffled_or_filtered_train_set_is_refused_by_problem_id(demo):
    build, train = demo
    sampler = MixedSampler.from_dataset(train, batch_size=2)
    check_rows(sampler, train)
    with pytest.raises(RowMismatch, match="36 rows, 3[0-9] name another problem; row 0 is"):
        check_rows(sampler, train.shuffle(seed=1))
    with pytest.raises(RowMismatch, match="past the 20 rows"):
        check_rows(sampler, train.select(range(20)))
    # without ids, the grouping column is compared
    labels = MixedSampler.from_labels(train["source"], 2)
    labels.group_column = "source"
    check_rows(labels, train)
    with pytest.raises(RowMismatch, match="another 'source'"):
        check_rows(labels, train.shuffle(seed=1))


def test_the_scorer_scores_the_prompt_trl_generates_from(demo, tmp_path):
    """`trainer.reference_scorer()` gives each row the exact token ids TRL's generation sees
    (recorded from inside the run), and its reference is the row's first solution."""
    import json

    _, train = demo
    model, tok = _char_model()
    sampler = FrontierSampler.from_dataset(
        train, batch_size=2, seed=0, score="learnability-low", explore=0.25, candidates=2
    )
    tr = MixerGRPOTrainer(
        model=model, reward_funcs=_reward, args=_args(tmp_path / "run", max_steps=2),
        train_dataset=train, processing_class=tok, sampler=sampler,
    )  # fmt: skip
    scorer = tr.reference_scorer()
    sampler.set_scorer(scorer)
    seen: list[list[int]] = []
    original = tr._tokenize_prompts

    def spy(prompts):
        out = original(prompts)
        seen.extend([int(t) for t in x] for x in out[0])
        return out

    tr._tokenize_prompts = spy
    tr.train()
    assert seen and sampler.ledger["scored_prompts"] > 0
    by_prompt = {tuple(scorer.prompts[i]): i for i in range(len(train))}
    for ids in seen:  # every prompt TRL generated from is one the scorer scores, token for token
        assert tuple(ids) in by_prompt
    i = by_prompt[tuple(seen[0])]
    text = tok.decode(scorer.prompts[i])
    assert text.startswith("<bos><user>") and text.endswith("<a>")
    assert scorer.references[i] == json.loads(train[i]["ground_truth"])["solutions"][0]
    # the generic constructor renders the same ids from the dataset alone
    generic = type(scorer).from_dataset(model, tok, train)
    assert generic.prompts[i] == scorer.prompts[i]


def test_trl_tells_acodm_the_run_length_and_says_the_mixer_is_active(demo, tmp_path, caplog):
    """A 12-step run with the default `acodm`: the mixer hears 12 updates, so its ODM warm-up is 1
    step (5%), not 50 of a guessed 1000; one start-up line names policy, sources and sampler."""
    _, train = demo
    model, tok = _char_model()
    tr = MixerGRPOTrainer(
        model=model, reward_funcs=_reward, args=_args(tmp_path / "run", max_steps=12),
        train_dataset=train, processing_class=tok, mixer="acodm",
    )  # fmt: skip
    logger = logging.getLogger("codemix.mixer")
    logger.addHandler(caplog.handler)
    try:
        tr.train()
    finally:
        logger.removeHandler(caplog.handler)
    assert isinstance(tr.mixer, ACODM)
    assert tr.mixer.horizon == 12 and tr.mixer.warmup == 1
    assert tr.mixer.horizon_origin.startswith("TRL")
    lines = [r.getMessage() for r in caplog.records]
    start = [x for x in lines if x.startswith("MixerGRPOTrainer: mixing with acodm over 3 sources")]
    assert len(start) == 1 and "horizon 12 updates" in start[0]
    assert not any("run's length is unknown" in x for x in lines)


def test_acodm_says_when_it_guesses_the_run_length(caplog):
    from mixer import Feedback

    logger = logging.getLogger("codemix.mixer")
    logger.addHandler(caplog.handler)
    try:
        m = make_mixer("acodm", 3)
        fb = Feedback(counts=np.ones(3), reward=np.array([0.1, 0.5, 0.9]),
                      adv_abs=np.array([0.1, 0.2, 0.3]))  # fmt: skip
        m.update(fb)
        m.update(fb)
    finally:
        logger.removeHandler(caplog.handler)
    guessed = [r.getMessage() for r in caplog.records if "unknown" in r.getMessage()]
    assert (
        len(guessed) == 1
        and "horizon=1000" in guessed[0]
        and "warm-up for the first 50" in guessed[0]
    )
    # a horizon given by the user wins over an adapter's
    given = ACODM(3, horizon=40)
    assert not given.set_horizon(12) and given.horizon == 40 and given.warmup == 2
    told = ACODM(3)
    assert told.set_horizon(200) and told.warmup == 10
    # the horizon travels with the state
    again = ACODM(3)
    again.load_state_dict(told.state_dict())
    assert again.horizon == 200 and again.warmup == 10 and again.horizon_origin == "the trainer"
    # MixedSampler(num_steps=...) tells its mixer too
    s = MixedSampler({"a": [0, 1], "b": [2, 3]}, 2, mixer="acodm", num_steps=30)
    assert s.mixer.horizon == 30 and s.mixer.warmup == 2


def _drawn_weights(trainer) -> list:
    """Record the weights of every draw the mixer issues: (weights id, weights, mixer step)."""
    out: list = []
    issue, mixer = trainer.mixer.issue, trainer.mixer

    def recorded():
        wid, w = issue()
        out.append((wid, w.copy(), mixer.step))
        return wid, w

    mixer.issue = recorded
    return out


@pytest.mark.parametrize("kw,save", [({}, 3), ({"num_iterations": 2}, 2)])
def test_trl_resume_between_generation_batches_repeats_the_run(demo, tmp_path, kw, save):
    """A run resumed from a checkpoint between generation batches (every step with the defaults;
    every 2 steps with num_iterations=2) draws every later batch with the same weights, at the same
    mixer step, as the uninterrupted run, and its mixer ends in the same state."""
    _, train = demo

    def trainer(out):
        model, tok = _char_model()
        args = _args(out, max_steps=6, save_strategy="steps", save_steps=save, **kw)
        return MixerGRPOTrainer(
            model=model, reward_funcs=_reward, args=args, train_dataset=train,
            processing_class=tok, mixer="advantage-bandit",
        )  # fmt: skip

    full = trainer(tmp_path / "full")
    drawn_full = _drawn_weights(full)
    full.train()
    resumed = trainer(tmp_path / "resumed")
    drawn_resumed = _drawn_weights(resumed)
    resumed.train(resume_from_checkpoint=str(tmp_path / "full" / f"checkpoint-{save}"))
    by_id = {wid: (w, step) for wid, w, step in drawn_full}
    assert drawn_resumed
    for wid, w, step in drawn_resumed:
        if wid in by_id:  # a draw past the run's end (the loader's look-ahead) has no twin
            np.testing.assert_array_equal(w, by_id[wid][0])
            assert step == by_id[wid][1]
    h_full = [(r["weights_id"], r["weights"]) for r in full.mixer.history]
    h_res = [(r["weights_id"], r["weights"]) for r in resumed.mixer.history]
    assert h_full == h_res and len(h_full) == full.mixer_updates(6)
    np.testing.assert_array_equal(full.mixer.weights(), resumed.mixer.weights())


def test_trl_warns_of_checkpoints_inside_a_generation_batch(demo, tmp_path, caplog):
    _, train = demo
    model, tok = _char_model()
    tr = MixerGRPOTrainer(
        model=model, reward_funcs=_reward, train_dataset=train, processing_class=tok,
        args=_args(tmp_path / "run", max_steps=3, save_strategy="steps", save_steps=3,
                   num_iterations=2),
        mixer="advantage-bandit",
    )  # fmt: skip
    logger = logging.getLogger("codemix.mixer")
    logger.addHandler(caplog.handler)
    try:
        tr.train()
    finally:
        logger.removeHandler(caplog.handler)
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("save_steps=3 is not a multiple of the 2 optimizer steps" in x for x in lines)
    assert any("checkpoint-3 falls inside a generation batch" in x for x in lines)
