"""Samplers that drop groups inside the real `trl.GRPOTrainer` (`MixerGRPOTrainer` refills the
generation batch): what is trained, what the sampler hears, what is logged, the fallback of a
batch that stays short, TRL's buffering and accumulation settings, and resume. Two processes:
`tests/mixer/test_trl_ranks.py`."""

from __future__ import annotations

import numpy as np
import pytest
import torch

trl = pytest.importorskip("trl")
pytest.importorskip("transformers")

from datasets import Dataset  # noqa: E402

from mixer import DynamicSampling, make_mixer  # noqa: E402
from mixer.adapters.trl import SKIP_KEY, MixerGRPOTrainer  # noqa: E402
from tests.mixer.test_adapter_trl import _tiny_model_and_tokenizer  # noqa: E402

G = 2  # completions per prompt
SOURCES = ["easy", "hard", "mid"]


def _data(sources: list[str]) -> Dataset:
    return Dataset.from_dict({"prompt": [f"p{i} " for i in range(len(sources))], "source": sources})


def _reward(completions, source, **kw):
    """'easy' always passes, 'hard' always fails (both zero advantage), 'mid' alternates."""
    return [
        1.0 if s == "easy" else 0.0 if s == "hard" else float(i % 2) for i, s in enumerate(source)
    ]


def _trainer(
    out, ds, max_steps=4, mixer="advantage-bandit", sampler_kw=None, trainer_kw=None,
    mixer_kw=None, **args_kw,
):  # fmt: skip
    names = sorted(set(ds["source"]))
    mixer = make_mixer(mixer, len(names), names=names, seed=0, **(mixer_kw or {}))
    sampler = DynamicSampling.from_labels(
        ds["source"], 2, mixer=mixer, seed=0, **(sampler_kw or {})
    )
    model, tok = _tiny_model_and_tokenizer()
    if args_kw.get("beta"):  # TRL loads the reference model by the policy's name: save it
        model.save_pretrained(out / "policy")
        model = str(out / "policy")
    args = trl.GRPOConfig(
        output_dir=str(out), num_generations=G, max_completion_length=3, max_steps=max_steps,
        report_to=[], logging_steps=1, use_cpu=True, seed=0, disable_tqdm=True,
        **{"save_strategy": "no", "per_device_train_batch_size": 4, **args_kw},
    )  # fmt: skip
    return MixerGRPOTrainer(
        model=model, reward_funcs=_reward, args=args, train_dataset=ds, processing_class=tok,
        sampler=sampler, **(trainer_kw or {}),
    )  # fmt: skip


class _Record:
    """What a run drew, what the sampler heard, and each generation batch it trained on (the
    prompt rows, read back from the batch's prompt ids, with their advantages and loss masks)."""

    def __init__(self, tr: MixerGRPOTrainer) -> None:
        self.draws: list[tuple[int, list[int]]] = []
        self.heard: list[tuple[object, list[int], np.ndarray]] = []
        self.batches: list[dict] = []
        self.micro: list[dict] = []
        self.graded = 0
        s = tr.mixed_sampler
        prompts = list(tr.train_dataset["prompt"])
        ids = tr._tokenize_prompts(prompts)[0]
        self.row_of = {tuple(int(t) for t in x): i for i, x in enumerate(ids)}
        next_batch, learn = s.next_batch, s.learn
        generate, prepare = tr._generate_and_score_completions, tr._prepare_inputs
        rewards = tr.reward_funcs[0]

        def drawing():
            idx = next_batch()
            self.draws.append((s.last_weights_id, [int(i) for i in idx]))
            return idx

        def learning(rows, rewards_, **kw):
            out = learn(rows, rewards_, **kw)
            self.heard.append((kw["weights_id"], [int(r) for r in rows], out.keep_group.copy()))
            return out

        def generating(inputs):
            batch = generate(inputs)
            if tr.model.training:
                self.batches.append(self._read(batch))
            return batch

        def preparing(inputs):
            got = prepare(inputs)
            if tr.model.training:
                self.micro.append(self._read(got))
            return got

        def grading(completions, **kw):
            self.graded += len(completions)
            return rewards(completions, **kw)

        grading.__name__ = "_reward"
        s.next_batch, s.learn = drawing, learning
        tr._generate_and_score_completions, tr._prepare_inputs = generating, preparing
        tr.reward_funcs[0] = grading

    def _read(self, batch: dict) -> dict:
        rows = [
            self.row_of[tuple(int(t) for t, m in zip(p, pm, strict=True) if m)]
            for p, pm in zip(
                batch["prompt_ids"].tolist(), batch["prompt_mask"].tolist(), strict=True
            )
        ]
        return {
            "rows": rows,
            "advantages": batch["advantages"].tolist(),
            "tokens": batch["completion_mask"].sum(dim=1).tolist(),
            "skip": SKIP_KEY in batch,
            "num_items": int(batch["num_items_in_batch"]),
            "keys": set(batch),
        }


def _same(a, b) -> bool:
    """Equal states, NaN (a feature not measured yet) equal to NaN."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return bool(a == b)


def _logged(tr: MixerGRPOTrainer, key: str) -> list[float]:
    return [h[key] for h in tr.state.log_history if key in h]


def test_refill_trains_only_informative_groups_and_the_logs_equal_the_ledger(tmp_path) -> None:
    ds = _data([SOURCES[i // 8] for i in range(24)])  # rows 0-7 easy, 8-15 hard, 16-23 mid
    tr = _trainer(tmp_path / "run", ds, max_steps=5)
    rec = _Record(tr)
    tr.train()
    s = tr.mixed_sampler
    assert len(rec.batches) == 5
    for b in rec.batches:  # two 'mid' prompts of two completions each, every row with advantage
        assert len(b["rows"]) == 4 and all(16 <= r < 24 for r in b["rows"])
        assert all(a != 0 for a in b["advantages"]) and not b["skip"]
        assert b["num_items"] == sum(b["tokens"])
    # the sampler heard every round it drew, dropped groups included, credited to its draw
    drawn = dict(rec.draws)
    assert len(rec.heard) == s.ledger["updates"] == len(s.mixer.history) > 5
    assert [wid for wid, _, _ in rec.heard] == [h["weights_id"] for h in s.mixer.history]
    for wid, rows, keep in rec.heard:
        assert sorted(set(rows)) == sorted(set(drawn[wid]))
        src = [ds["source"][r] for r in rows[::G]]
        assert list(keep) == [x == "mid" for x in src]
    assert len(drawn) - len(rec.heard) <= 2  # only the loader's look-ahead is not heard yet
    # every completion graded is in the ledger, and the logs say the same to the rollout
    assert s.ledger["rollouts"] == rec.graded == tr.rollouts["rollouts"]
    assert sum(_logged(tr, "mixer/rollouts")) == s.ledger["rollouts"]
    assert _logged(tr, "mixer/total/rollouts")[-1] == s.ledger["rollouts"]
    assert sum(_logged(tr, "mixer/rounds")) == s.ledger["updates"]
    dropped = sum(_logged(tr, "mixer/groups_dropped"))
    assert (
        dropped * G == s.ledger["discarded_rollouts"]
        and dropped == s.ledger["zero_advantage_groups"]
    )
    surplus = sum(_logged(tr, "mixer/groups_surplus"))
    assert tr.rollouts["trained_rollouts"] == 5 * 4 == sum(_logged(tr, "mixer/trained_rollouts"))
    assert s.ledger["rollouts"] - tr.rollouts["trained_rollouts"] == (dropped + surplus) * G
    assert _logged(tr, "mixer/total/untrained_rollouts")[-1] == (dropped + surplus) * G
    assert all(v == 0.0 for v in _logged(tr, "mixer/zero_advantage/mid"))
    assert all(v == 1.0 for v in _logged(tr, "mixer/zero_advantage/easy"))
    assert f"the filter cost {int(dropped + surplus) * G} " in tr.rollout_summary()


def test_a_batch_still_short_trains_on_what_it_has_or_is_skipped(tmp_path) -> None:
    """One 'mid' problem and eight 'easy' ones under uniform weights: every round draws one of
    each, so one round keeps one of its two groups."""
    ds = _data(["mid"] + ["easy"] * 8)
    kw = {"mixer": "uniform"}
    refilled = _trainer(tmp_path / "a", ds, max_steps=2, **kw)
    rec = _Record(refilled)
    refilled.train()
    assert refilled.rollouts["rounds"] == 4 and refilled.rollouts["short_batches"] == 0
    assert all(
        b["rows"].count(0) == 4 and all(a != 0 for a in b["advantages"]) for b in rec.batches
    )

    short = _trainer(tmp_path / "b", ds, max_steps=2, trainer_kw={"refill_rounds": 1}, **kw)
    before = [p.detach().clone() for p in short.model.parameters()]
    rec = _Record(short)
    short.train()
    assert short.rollouts["short_batches"] == 2 and short.rollouts["groups_padded"] == 2
    assert short.rollouts["trained_rollouts"] == 2 * G
    for b in rec.batches:  # the 'mid' group trains, the filler 'easy' group carries no loss
        for row, adv, tokens in zip(b["rows"], b["advantages"], b["tokens"], strict=True):
            assert (adv != 0 and tokens > 0) if row == 0 else (adv == 0 and tokens == 0)
        assert b["num_items"] == sum(b["tokens"]) > 0
    assert any(not torch.equal(a, b) for a, b in zip(before, short.model.parameters(), strict=True))

    skipped = _trainer(
        tmp_path / "c",
        ds,
        max_steps=2,
        trainer_kw={"refill_rounds": 1, "refill_fallback": "skip"},
        **kw,
    )
    before = [p.detach().clone() for p in skipped.model.parameters()]
    rec = _Record(skipped)
    skipped.train()
    assert skipped.rollouts["skipped_batches"] == 2 and skipped.rollouts["trained_rollouts"] == 0
    assert all(b["skip"] and sum(b["tokens"]) == 0 for b in rec.batches)
    assert all(torch.equal(a, b) for a, b in zip(before, skipped.model.parameters(), strict=True))
    assert not _logged(skipped, "entropy")  # no forward pass of the policy on a skipped batch
    assert skipped.mixed_sampler.ledger["rollouts"] == 2 * 2 * G  # the sampler heard them all
    assert "2 batches reached refill_rounds=1 (2 skipped" in skipped.rollout_summary()


def test_refill_under_iterations_buffering_accumulation_and_a_kl_term(tmp_path) -> None:
    """num_iterations=2, steps_per_generation=2, gradient accumulation 2 (so TRL keeps the old
    log-probs) and beta > 0 (reference log-probs): every buffered micro-batch holds informative
    rows only, each generation batch's rows are trained twice, and the counts hold."""
    ds = _data([SOURCES[i // 8] for i in range(24)])
    tr = _trainer(
        tmp_path / "run", ds, max_steps=4, per_device_train_batch_size=2, steps_per_generation=2,
        num_iterations=2, gradient_accumulation_steps=2, beta=0.1,
    )  # fmt: skip
    rec = _Record(tr)
    tr.train()
    assert len(rec.batches) == 2 and len(rec.micro) == 8  # 4 steps x 2 micro-batches
    for b in rec.batches:  # joined from rounds, TRL's old and reference log-probs with them
        assert all(16 <= r < 24 for r in b["rows"]) and all(a != 0 for a in b["advantages"])
        assert {"old_per_token_logps", "ref_per_token_logps"} <= b["keys"]
    for k, b in enumerate(rec.batches):  # each micro-batch is half of its generation batch
        micro = rec.micro[4 * k : 4 * k + 4]
        assert all(len(m["rows"]) == 2 and all(a != 0 for a in m["advantages"]) for m in micro)
        assert sorted(r for m in micro[:2] for r in m["rows"]) == sorted(b["rows"])
        assert sorted(r for m in micro[2:] for r in m["rows"]) == sorted(b["rows"])
    s = tr.mixed_sampler
    assert s.ledger["rollouts"] == rec.graded == sum(_logged(tr, "mixer/rollouts"))
    assert tr.rollouts["generation_batches"] == 2 and tr.rollouts["trained_rollouts"] == 2 * 4


def test_a_resumed_refill_run_repeats_the_uninterrupted_draws(tmp_path) -> None:
    ds = _data([SOURCES[i // 8] for i in range(24)])
    full = _trainer(tmp_path / "full", ds, max_steps=4, save_strategy="steps", save_steps=2)
    rec_full = _Record(full)
    full.train()
    resumed = _trainer(tmp_path / "resumed", ds, max_steps=4)
    rec_res = _Record(resumed)
    resumed.train(resume_from_checkpoint=str(tmp_path / "full" / "checkpoint-2"))
    a, b = full.mixed_sampler, resumed.mixed_sampler
    assert rec_res.draws == rec_full.draws[len(rec_full.draws) - len(rec_res.draws) :]
    assert [(w, r) for w, r, _ in rec_res.heard] == [
        (w, r) for w, r, _ in rec_full.heard[len(rec_full.heard) - len(rec_res.heard) :]
    ]
    assert [x["rows"] for x in rec_res.batches] == [x["rows"] for x in rec_full.batches[2:]]
    assert b.state_dict() == a.state_dict() and b.ledger == a.ledger
    assert b.mixer.history == a.mixer.history
    assert resumed.rollouts == full.rollouts  # the counts went on from the checkpoint's
    assert _logged(resumed, "mixer/total/rollouts")[-1] == a.ledger["rollouts"]


def test_refill_refuses_what_it_cannot_train_faithfully(tmp_path) -> None:
    ds = _data([SOURCES[i // 8] for i in range(24)])
    with pytest.raises(ValueError, match="scale_rewards='batch'"):
        _trainer(tmp_path / "a", ds, scale_rewards="batch")
    with pytest.raises(ValueError, match="refill_fallback"):
        _trainer(tmp_path / "b", ds, trainer_kw={"refill_fallback": "wait"})
    with pytest.raises(ValueError, match="refill_rounds"):
        _trainer(tmp_path / "c", ds, trainer_kw={"refill_rounds": 0})


@pytest.mark.parametrize("refill", [True, False], ids=["dynamic-sampling", "mixed"])
def test_a_resumed_run_graded_on_its_completions_repeats_the_uninterrupted_one(
    tmp_path, refill
) -> None:
    """B3's small code model on its frozen export, graded by codemix's correctness reward (which
    runs each completion): a run resumed from checkpoint-2 generates the same completions, so the
    same rewards, draws, ledger, mixer and counts as the uninterrupted run. Generation after a
    resume was once shifted by the seed the train loader's new iterator draws from torch's
    generator after transformers restored it (`ignore_data_skip`): the same rows, other rewards."""
    from filters.reward import trl_correctness_reward
    from mixer import MixedSampler
    from tests.mixer.trl_code import code_model, code_train

    train = code_train()

    def run(out, resume=None):
        cls = DynamicSampling if refill else MixedSampler
        sampler = cls.from_dataset(train, batch_size=4, mixer="acodm", seed=0)
        model, tok = code_model()
        args = trl.GRPOConfig(
            output_dir=str(out), per_device_train_batch_size=32, num_generations=8,
            max_completion_length=48, max_steps=4, report_to=[], logging_steps=1, use_cpu=True,
            seed=0, disable_tqdm=True, save_strategy="steps", save_steps=2, learning_rate=1e-4,
        )  # fmt: skip
        graded: list[list[str]] = []
        heard: list[tuple] = []
        learn = sampler.learn

        def grading(completions, **kw):
            graded.append([c[0]["content"] if isinstance(c, list) else c for c in completions])
            return trl_correctness_reward(completions=completions, **kw)

        def learning(rows, rewards, **kw):
            heard.append((kw["weights_id"], [int(r) for r in rows], np.asarray(rewards).tolist()))
            return learn(rows, rewards, **kw)

        grading.__name__ = "correctness"
        sampler.learn = learning
        tr = MixerGRPOTrainer(
            model=model, reward_funcs=[grading], args=args, train_dataset=train,
            processing_class=tok, sampler=sampler,
        )  # fmt: skip
        tr.train(resume_from_checkpoint=resume)
        return tr, graded, heard

    full, graded_full, heard_full = run(tmp_path / "full")
    resumed, graded_res, heard_res = run(tmp_path / "resumed", str(tmp_path / "full/checkpoint-2"))
    rewards = [r for _, _, rs in heard_full for r in rs]
    assert 0 < sum(rewards) < len(rewards)  # the reward tells completions apart
    assert len(heard_res) >= 2
    assert heard_res == heard_full[len(heard_full) - len(heard_res) :]  # draws and rewards
    assert graded_res == graded_full[len(graded_full) - len(graded_res) :]  # the completions
    a, b = full.mixed_sampler, resumed.mixed_sampler
    assert getattr(b, "ledger", None) == getattr(a, "ledger", None)
    assert _same(b.state_dict(), a.state_dict())  # NaN (not measured yet) equal to NaN
    assert b.mixer.history == a.mixer.history and resumed.rollouts == full.rollouts
    if refill:
        assert full.rollouts["rounds"] > full.rollouts["generation_batches"]


def test_acodm_under_refill_is_told_the_updates_it_makes(tmp_path, caplog) -> None:
    """ACODM updates once per round; under refill the trainer re-tells its horizon after every
    generation batch (the rounds so far plus the batches left at the rounds per batch so far), so
    its warm-up is sized on rounds, and at the run's end the horizon equals the updates it made.
    It was once sized on the generation batches (5 here) while it made about three times as many
    updates. A horizon the user gives is kept; a resumed run re-tells the same."""
    ds = _data([SOURCES[i // 8] for i in range(24)])
    tr = _trainer(tmp_path / "run", ds, max_steps=5, mixer="acodm")
    told: list[tuple[int, int]] = []  # (updates made, horizon) after each generation batch
    retell = tr._retell_horizon

    def retelling():
        retell()
        told.append((tr.mixer.step, tr.mixer.horizon))

    tr._retell_horizon = retelling
    tr.train()
    m = tr.mixer
    assert tr.rollouts["generation_batches"] == 5 and tr.rollouts["rounds"] > 5
    assert m.step == len(m.history) == tr.mixed_sampler.ledger["updates"] == tr.rollouts["rounds"]
    assert m.horizon == m.step and told[-1] == (m.step, m.step)
    assert m.horizon_origin.startswith("TRL: refill")
    assert m.warmup == max(1, round(m.warmup_frac * m.step))
    assert all(h > 5 for _, h in told)  # re-told from the first batch on, in rounds
    given = _trainer(tmp_path / "given", ds, max_steps=5, mixer="acodm", mixer_kw={"horizon": 40})
    with caplog.at_level("INFO", logger="codemix.mixer"):
        given.train()
    assert given.mixer.horizon == 40 and given.mixer.horizon_origin == "user"
    assert sum("horizon=40 as given" in r.getMessage() for r in caplog.records) == 1


def _snapshot(tr: MixerGRPOTrainer) -> tuple[list, dict]:
    """The policy's parameters and the optimizer's state, copied."""
    params = [p.detach().clone() for p in tr.model.parameters()]
    state = {
        i: {k: v.clone() if torch.is_tensor(v) else v for k, v in st.items()}
        for i, st in tr.optimizer.state_dict()["state"].items()
    }
    return params, state


def _equal(a: tuple[list, dict], b: tuple[list, dict]) -> bool:
    same_params = all(torch.equal(x, y) for x, y in zip(a[0], b[0], strict=True))
    same_state = a[1].keys() == b[1].keys() and all(
        a[1][i].keys() == b[1][i].keys()
        and all(
            torch.equal(a[1][i][k], b[1][i][k])
            if torch.is_tensor(a[1][i][k])
            else a[1][i][k] == b[1][i][k]
            for k in a[1][i]
        )
        for i in a[1]
    )
    return same_params and same_state


@pytest.mark.parametrize("fallback", ["train", "skip"])
def test_a_step_that_trains_no_row_leaves_weights_and_optimizer_state_as_they_were(
    tmp_path, fallback
) -> None:
    """Uniform weights over 'easy', 'hard' and 'mid', two prompts a round, one round a batch: a
    batch without a 'mid' prompt keeps no group. Its optimizer step leaves the weights and AdamW's
    state (moments, step count) exactly as they were, under either fallback; a step that trains
    changes them. Under "train" it once stepped AdamW on a zero gradient, and the momentum of the
    previous steps moved the weights."""
    from transformers import TrainerCallback

    ds = _data([SOURCES[i // 8] for i in range(24)])
    tr = _trainer(
        tmp_path / "run", ds, max_steps=10, mixer="uniform",
        trainer_kw={"refill_rounds": 1, "refill_fallback": fallback},
    )  # fmt: skip
    steps: list[tuple[int, int, tuple]] = []  # (rollouts trained, empty batches, snapshot)

    class Snap(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            n = tr.rollouts
            steps.append((n["trained_rollouts"], n["empty_batches"], _snapshot(tr)))

    tr.add_callback(Snap())
    tr.train()
    empty = 0
    for (t0, e0, before), (t1, e1, after) in zip(steps, steps[1:]):
        if t1 == t0:  # this step trained no row ("skip": a short batch too)
            assert _equal(before, after)
            empty += e1 - e0
        else:
            assert not _equal(before, after)
    assert empty  # a batch that kept no group came after a step that trained
    assert "kept no group (they trained nothing)" in tr.rollout_summary()


@pytest.mark.parametrize("backoff", [True, False])
def test_rounds_that_find_no_informative_group_warn_and_back_off(tmp_path, caplog, backoff) -> None:
    """Only 'easy' and 'hard' problems: no group is ever informative. While the run goes on, a
    warning names the cause (every group dropped, all passed or all failed) at the 1st, 2nd, 4th
    such batch in a row; with `refill_backoff` each such batch halves the rounds the next may
    take (4, 2, 1, 1), without it every batch costs `refill_rounds` rounds. Nothing trains."""
    ds = _data(["easy"] * 8 + ["hard"] * 8)
    tr = _trainer(
        tmp_path / "run", ds, max_steps=5,
        trainer_kw={"refill_rounds": 4, "refill_backoff": backoff},
    )  # fmt: skip
    before = [p.detach().clone() for p in tr.model.parameters()]
    with caplog.at_level("WARNING", logger="codemix.mixer"):
        tr.train()
    rounds = _logged(tr, "mixer/rounds")
    assert rounds == ([4, 2, 1, 1, 1] if backoff else [4] * 5)
    warned = [r.getMessage() for r in caplog.records if "kept no group" in r.getMessage()]
    assert len(warned) == 3  # batches 1, 2 and 4 of the streak
    assert warned[0].startswith("MixerGRPOTrainer: 1 generation batch(es) in a row kept no group")
    assert (
        "DynamicSampling dropped all 8 groups of the batch's 4 round(s), 8 of them with equal"
        in (warned[0])
    )
    assert "too easy or too hard" in warned[0]
    assert ("may take 2 round(s)" if backoff else "costs refill_rounds=4") in warned[0]
    n = tr.rollouts
    assert n["empty_batches"] == n["empty_streak"] == 5 and n["trained_rollouts"] == 0
    assert n["rollouts"] == tr.mixed_sampler.ledger["rollouts"] == sum(rounds) * 2 * G
    # no step touched the weights or the optimizer (AdamW holds no state for any parameter)
    assert all(torch.equal(a, b) for a, b in zip(before, tr.model.parameters(), strict=True))
    assert tr.optimizer.state_dict()["state"] == {}


def test_logged_counts_are_totals_when_several_generation_batches_make_a_step(tmp_path) -> None:
    """Two generation batches per optimizer step (gradient accumulation 2, a generation batch
    per micro-batch): each step logs the totals of its batches, so the logged counts sum to the
    sampler's ledger. They were once the mean of the step's batches (half the rollouts)."""
    ds = _data([SOURCES[i // 8] for i in range(24)])
    tr = _trainer(
        tmp_path / "run", ds, max_steps=3, per_device_train_batch_size=4,
        gradient_accumulation_steps=2, steps_per_generation=1,
    )  # fmt: skip
    rec = _Record(tr)
    tr.train()
    s = tr.mixed_sampler
    assert tr.rollouts["generation_batches"] == 6 and len(_logged(tr, "mixer/rollouts")) == 3
    assert sum(_logged(tr, "mixer/rollouts")) == s.ledger["rollouts"] == rec.graded
    assert sum(_logged(tr, "mixer/rounds")) == s.ledger["updates"] == tr.rollouts["rounds"]
    assert sum(_logged(tr, "mixer/trained_rollouts")) == tr.rollouts["trained_rollouts"] == 6 * 4
    assert sum(_logged(tr, "mixer/groups_kept")) >= 6 * 2
