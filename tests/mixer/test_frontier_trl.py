"""FrontierSampler inside the real `trl.GRPOTrainer` (`MixerGRPOTrainer(sampler=...)`): per-problem
rewards reach the sampler, each generation batch is credited to the draw that made it, and a resumed
run continues exactly."""

from __future__ import annotations

import numpy as np
import pytest
import torch

trl = pytest.importorskip("trl")
pytest.importorskip("transformers")

from datasets import Dataset  # noqa: E402

from mixer import FrontierSampler, make_mixer  # noqa: E402
from mixer.adapters.trl import MixerGRPOTrainer  # noqa: E402
from tests.mixer.test_adapter_trl import _tiny_model_and_tokenizer  # noqa: E402

N = 24
SOURCES = ["easy", "hard", "mid"]


def _rows() -> dict:
    """Rows 0-7 'easy' (always solved), 8-15 'hard' (never), 16-23 'mid' (half the completions)."""
    src = [SOURCES[i // 8] for i in range(N)]
    diff = [0.1 if s == "easy" else 0.9 if s == "hard" else 0.5 for s in src]
    return {"prompt": [f"p{i} " for i in range(N)], "source": src, "difficulty": diff}


def _reward(completions, source, **kw):
    return [
        1.0 if s == "easy" else 0.0 if s == "hard" else float(i % 2) for i, s in enumerate(source)
    ]


def _sampler(ds, cls=FrontierSampler, **kw) -> FrontierSampler:
    mixer = make_mixer("advantage-bandit", 3, names=SOURCES, seed=0)
    return cls.from_labels(ds["source"], 2, mixer=mixer, seed=0, **kw)


def _trainer(out, sampler, ds, max_steps=6, **args_kw):
    model, tok = _tiny_model_and_tokenizer()
    args = trl.GRPOConfig(
        output_dir=str(out),
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=3,
        max_steps=max_steps,
        report_to=[],
        logging_steps=1,
        use_cpu=True,
        seed=0,
        disable_tqdm=True,
        **{"save_strategy": "steps", "save_steps": 3, **args_kw},
    )
    return MixerGRPOTrainer(
        model=model,
        reward_funcs=_reward,
        args=args,
        train_dataset=ds,
        processing_class=tok,
        sampler=sampler,
    )


def _recorded(sampler: FrontierSampler) -> tuple[dict, list, list]:
    """Record each draw's problems by weights id, each update's (problems, weights id, rewards),
    and the order of draws and updates."""
    drawn: dict[int, list[int]] = {}
    fed: list = []
    events: list[tuple[str, int]] = []
    next_batch, learn = sampler.next_batch, sampler.learn

    def rec_next():
        idx = next_batch()
        drawn[sampler.last_weights_id] = sorted(int(i) for i in idx)
        events.append(("draw", sampler.last_weights_id))
        return idx

    def rec_learn(problems, rewards, weights_id=None, **kw):
        fed.append((sorted({int(p) for p in problems}), weights_id, np.asarray(rewards)))
        events.append(("feed", weights_id))
        return learn(problems, rewards, weights_id=weights_id, **kw)

    sampler.next_batch, sampler.learn = rec_next, rec_learn
    return drawn, fed, events


def test_trl_feeds_each_problem_its_own_rewards_credited_to_its_draw(tmp_path) -> None:
    ds = Dataset.from_dict(_rows())
    sampler = _sampler(ds, difficulty=ds["difficulty"])
    drawn, fed, events = _recorded(sampler)
    before = sampler.predicted_pass_rate(np.arange(N))
    tr = _trainer(tmp_path / "run", sampler, ds, save_strategy="no")
    tr.train()
    assert len(fed) == 6 and sampler.ledger["updates"] == 6
    assert sampler.ledger["rollouts"] == 6 * 2 * 2  # 2 prompts x 2 generations per step
    assert len(sampler.mixer.history) == 6
    for problems, wid, _ in fed:  # the rows scored are the rows of the draw named by the id
        assert problems == sorted(set(drawn[wid])), (problems, wid, drawn)
    # TRL's loader drew a batch before the previous one was scored: the latest draw was not it
    first_feed = events.index(("feed", fed[0][1]))
    assert sum(kind == "draw" for kind, _ in events[:first_feed]) > 1, events
    seen = sorted({p for problems, _, _ in fed for p in problems})
    after = sampler.predicted_pass_rate(np.arange(N))
    assert any(p < 16 for p in seen)
    for p in seen:  # each problem's own attempts moved its posterior the right way
        if p < 8:
            assert after[p] > before[p]
        elif p < 16:
            assert after[p] < before[p]
    for lo in (0, 8):  # beyond the source's shared ability, each drawn problem's own attempts
        s_seen = [abs(after[p] - before[p]) for p in seen if lo <= p < lo + 8]
        s_unseen = [abs(after[p] - before[p]) for p in range(lo, lo + 8) if p not in seen]
        if s_seen and s_unseen:
            assert min(s_seen) > max(s_unseen) + 1e-6, (lo, s_seen, s_unseen)


def test_trl_resume_continues_the_frontier_sampler_exactly(tmp_path) -> None:
    ds = Dataset.from_dict(_rows())
    tr = _trainer(tmp_path / "run", _sampler(ds, difficulty=ds["difficulty"]), ds)
    tr.train()
    assert (tmp_path / "run" / "checkpoint-3" / "mixer_state.pt").is_file()
    tr2 = _trainer(tmp_path / "run", _sampler(ds, difficulty=ds["difficulty"]), ds)
    tr2.train(resume_from_checkpoint=str(tmp_path / "run" / "checkpoint-3"))
    a, b = tr.mixed_sampler, tr2.mixed_sampler
    assert b.ledger == a.ledger
    assert b.state_dict() == a.state_dict()
    np.testing.assert_array_equal(
        b.predicted_pass_rate(np.arange(N)), a.predicted_pass_rate(np.arange(N))
    )
    assert b.mixer.history == a.mixer.history


def test_trl_scorer_reads_the_policy_being_trained(tmp_path) -> None:
    """A reference-likelihood scorer over the trainer's own model (and real tokenizer) scores the
    candidates of every draw TRL makes, in the training process, with no rollouts of its own."""
    from mixer.problems.scorers import ReferenceLikelihood

    ds = Dataset.from_dict(_rows())
    sampler = _sampler(ds, difficulty=ds["difficulty"], score="learnability-low", candidates=3)
    tr = _trainer(tmp_path / "run", sampler, ds, save_strategy="no")
    refs = ["a1" if s == "easy" else "zz9" for s in ds["source"]]
    scorer = ReferenceLikelihood(tr.model, tr.processing_class, ds["prompt"], refs, batch_size=4)
    calls: list[np.ndarray] = []

    def spy(idx):
        calls.append(np.asarray(idx))
        return scorer(idx)

    sampler.set_scorer(spy)
    weights = [p.detach().clone() for p in tr.model.parameters()]
    tr.train()
    assert sampler.ledger["updates"] == 6 and sampler.ledger["rollouts"] == 24
    assert len(calls) >= 6 and sampler.ledger["scored_prompts"] == sum(len(c) for c in calls)
    assert all(np.isfinite(scorer(c)).all() for c in calls[:2])
    assert sampler.model.sig_scale > 0  # the signal reached the model
    assert any(not torch.equal(a, b) for a, b in zip(weights, tr.model.parameters()))
    assert tr.model.training  # the scorer's eval mode did not leak into training
