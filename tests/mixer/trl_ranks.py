"""Run by `tests/mixer/test_trl_ranks.py` on two processes (torch.distributed, gloo, CPU): a short
`MixerGRPOTrainer` run with a `FrontierSampler` scored by the policy, recording on every rank, after
every generation batch, a digest of the mixer's and the sampler's state and the rows this rank
received, and on every draw the rows drawn; then the same run resumed from its checkpoint after
step 2. Writes `OUT/full/rank<R>.json` and `OUT/resumed/rank<R>.json`. Then the same two runs with
`DynamicSampling` (the trainer refills its batches), recording also every round the sampler heard
and the rows each rank trained on: `OUT/dapo-full/`, `OUT/dapo-resumed/`.

    ACCELERATE_USE_CPU=true python -m torch.distributed.run --nproc_per_node 2 \
        tests/mixer/trl_ranks.py TRL_EXPORT OUT
"""

from __future__ import annotations

import hashlib
import json
import sys
import zlib
from pathlib import Path

import numpy as np
import torch


def _digest(state) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def _draw_state(sampler) -> str:
    """The sampler's state less what it fitted on the scorer's signals (which read the policy)."""
    st = sampler.state_dict()
    problems = {k: v for k, v in st["problems"].items() if k != "sampler"}
    return _digest({**{k: v for k, v in st.items() if k != "problems"}, "problems": problems})


def _kind(problem_id: str) -> int:
    """0: every completion passes, 1: every one fails, 2: they alternate (the DAPO runs)."""
    return zlib.crc32(problem_id.encode()) % 3


def run(
    export: Path, out: Path, resume: str | None, dapo: bool = False, code: bool = False
) -> None:
    """One run of 4 steps on this rank, recorded to `out/rank{r}.json`; `code`: DynamicSampling on
    B3's small code model and its frozen export, graded by codemix's correctness reward."""
    from datasets import load_from_disk

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import trl

    from filters.reward import trl_correctness_reward
    from mixer import DynamicSampling, FrontierSampler, make_mixer
    from mixer.adapters.torch import ROW_KEY
    from mixer.adapters.trl import MixerGRPOTrainer
    from tests.mixer.test_trainer_seams import _char_model
    from tests.mixer.trl_code import code_model, code_train

    train = code_train() if code else load_from_disk(str(export))["train"]
    names = sorted(set(train["source"]))
    mixer = make_mixer("acodm" if code else "advantage-bandit", len(names), names=names, seed=0)
    if dapo or code:
        sampler = DynamicSampling.from_dataset(
            train, batch_size=2 if code else 4, seed=0, mixer=mixer
        )
    else:
        sampler = FrontierSampler.from_dataset(
            train, batch_size=4, seed=0, score="learnability-low", explore=0.25, candidates=2,
            mixer=mixer,
        )  # fmt: skip
    model, tok = code_model() if code else _char_model()
    graded: list = []

    def reward(completions, problem_id, **kw):  # depends on the problem, so groups differ
        if code:  # reads the completions
            graded.append([c[0]["content"] if isinstance(c, list) else c for c in completions])
            return trl_correctness_reward(completions=completions, problem_id=problem_id, **kw)
        if dapo:
            return [
                float(_kind(p) == 0 or (_kind(p) == 2 and i % 2)) for i, p in enumerate(problem_id)
            ]
        return [float((zlib.crc32(p.encode()) + i) % 3 == 0) for i, p in enumerate(problem_id)]

    args = trl.GRPOConfig(
        output_dir=str(out / "run"), per_device_train_batch_size=4,
        num_generations=4 if code else 2, max_completion_length=48 if code else 4, max_steps=4,
        report_to=[], use_cpu=True, seed=0, disable_tqdm=True, logging_steps=100,
        save_strategy="steps", save_steps=2,
    )  # fmt: skip
    tr = MixerGRPOTrainer(
        model=model, reward_funcs=reward, args=args, train_dataset=train,
        processing_class=tok, sampler=sampler,
    )  # fmt: skip
    if not (dapo or code):
        sampler.set_scorer(tr.reference_scorer())
    rank = tr.accelerator.process_index
    record: dict = {
        "rank": rank, "draws": [], "steps": [], "heard": [], "batches": [], "rewards": [],
    }  # fmt: skip
    next_batch, calc = sampler.next_batch, tr._calculate_rewards
    learn, generate = sampler.learn, tr._generate_and_score_completions
    row_of = {
        tuple(map(int, x)): i for i, x in enumerate(tr._tokenize_prompts(list(train["prompt"]))[0])
    }

    def learning(rows, rewards, **kw):
        out = learn(rows, rewards, **kw)
        record["heard"].append([kw["weights_id"], [int(r) for r in rows], out.keep_group.tolist()])
        record["rewards"].append(np.asarray(rewards).tolist())
        return out

    def generating(inputs):  # the batch this rank trains on: its rows, their advantages
        batch = generate(inputs)
        ids, mask = batch["prompt_ids"].tolist(), batch["prompt_mask"].tolist()
        rows = [row_of[tuple(t for t, m in zip(p, pm) if m)] for p, pm in zip(ids, mask)]
        record["batches"].append(
            {
                "rows": rows,
                "advantages": batch["advantages"].tolist(),
                "heard": len(record["heard"]),
            }
        )
        return batch

    def drawing():
        idx = next_batch()
        record["draws"].append({"weights_id": sampler.last_weights_id, "rows": list(map(int, idx))})
        return idx

    def calculating(inputs, *a, **k):
        local = [int(x[ROW_KEY]) for x in inputs]
        wid = inputs[0].get("mixer_weights_id")
        got = calc(inputs, *a, **k)
        record["steps"].append(
            {
                "weights_id": wid,
                "local_rows": local,
                "mixer": _digest(tr.mixer.state_dict()),
                "sampler": _digest(sampler.state_dict()),
                "weights": tr.mixer.weights().tolist(),
                "scored": sampler.ledger["scored_prompts"],
                "policy": float(sum(p.double().sum() for p in tr.model.parameters())),
                "draw_state": _draw_state(sampler),
            }
        )
        return got

    sampler.next_batch, tr._calculate_rewards = drawing, calculating
    sampler.learn, tr._generate_and_score_completions = learning, generating
    torch.manual_seed(0)
    np.random.seed(0)
    tr.train(resume_from_checkpoint=resume)
    record["rollouts"] = tr.rollouts
    record["graded"] = graded
    record["ledger"] = dict(sampler.ledger) if hasattr(sampler, "ledger") else None
    record["kind"] = [_kind(p) for p in train["problem_id"]]
    (out / f"rank{rank}.json").write_text(json.dumps(record))


def main() -> None:
    """The uninterrupted run, then (in the same processes, to pay for one start) the run resumed
    from its checkpoint after step 2; the same two with DynamicSampling."""
    export, out = Path(sys.argv[1]), Path(sys.argv[2])
    for prefix, dapo, code in (("", False, False), ("dapo-", True, False), ("code-", False, True)):
        run(export, out / f"{prefix}full", None, dapo, code)
        torch.distributed.barrier()  # both ranks done with the first run and its checkpoints
        run(
            export,
            out / f"{prefix}resumed",
            str(out / f"{prefix}full" / "run" / "checkpoint-2"),
            dapo,
            code,
        )
    # the process group torn down before the interpreter exits: gloo's threads left running at
    # exit can end a rank in "terminate called without an active exception" (SIGABRT)
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    import os

    main()
    # both records are written and the group is down; skip the interpreter's teardown, where
    # threads torch left behind have aborted a rank once in CI (SIGABRT after a finished run)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
