"""What MixerGRPOTrainer's refill costs beyond the generation it adds, in the real TRL GRPOTrainer.

One run, two arms on the same model, data and reward, one after the other: `DynamicSampling`
(DAPO's filter: the trainer refills each generation batch from several rounds) and the plain
`ProblemSampler` (keeps every group: one round a step, no refill). Both train on 8 groups of 8
completions a step (`--prompts`, `--group`). A third of the problems are always solved, a third
never, a third half the time, so DAPO needs about three rounds for its 8 informative groups.

Timed per optimizer step, after a warm-up step: the step's wall time (`on_step_begin` to
`on_step_end`), the time inside TRL's own `_generate_and_score_completions` (generation, rewards,
advantages: one call per round), and the refill's own work: the time inside
`MixerGRPOTrainer._generate_and_score_completions` outside TRL's calls (drawing the next round,
reading its rows, choosing the groups, joining the rounds' tensors, counting, logging) plus every
round's `sampler.learn` (conservatively counted as refill cost, though any problem sampler hears
its round). Its share of the step is the claim: under 2%.

A third arm, `DynamicSampling` with `num_iterations=2`, makes TRL compute the old policy's
log-probabilities inside its generate-and-score, before the rewards, for every round: the refill
then pays them for the groups it drops. Timed: TRL's `_get_per_token_logps_and_entropies` calls
without gradient (the old and reference log-probabilities), and their part for the groups not
trained (the dropped and surplus groups' share of the rows: every round holds as many rows). The
refill's cost beyond generation is then its own work plus those log-probabilities.

    OMP_NUM_THREADS=1 nice .venv/bin/python benchmarks/mixing/trl_refill_overhead.py
    .venv/bin/python benchmarks/mixing/trl_refill_overhead.py --quick
Writes benchmarks/results/trl_refill_overhead.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import results_dir, stamp  # noqa: E402
from mixer_in_trainers import _model_and_tokenizer as _gpt2  # noqa: E402

KINDS = ("solved", "failed", "half")  # per problem: what its completions score


def _model_and_tokenizer():
    return _gpt2(n_positions=256, n_embd=128, n_layer=4, n_head=4)


def _reward(completions, kind, **kw):
    return [float(k == "solved" or (k == "half" and i % 2)) for i, k in enumerate(kind)]


def _ratio(num: float, den: float) -> float:
    """num / den, NaN where nothing was measured (den 0)."""
    return float(num / den) if den else float("nan")


def run_arm(
    refill: bool,
    steps: int,
    tokens: int,
    out: str,
    prompts: int = 8,
    group: int = 8,
    num_iterations: int = 1,
) -> dict:
    import trl
    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import GRPOTrainer

    from mixer import DynamicSampling, ProblemSampler
    from mixer.adapters.trl import MixerGRPOTrainer

    n = 96
    kind = [KINDS[i % 3] for i in range(n)]
    ds = Dataset.from_dict(
        {
            "prompt": [f"problem {i} asks for {i % 7} things " for i in range(n)],
            "source": [f"s{i % 4}" for i in range(n)],
            "kind": kind,
        }
    )
    cls = DynamicSampling if refill else ProblemSampler
    sampler = cls.from_labels(ds["source"], prompts, mixer="uniform", seed=0)
    model, tok = _model_and_tokenizer()
    args = trl.GRPOConfig(
        output_dir=out, per_device_train_batch_size=prompts * group, num_generations=group,
        max_completion_length=tokens, max_steps=steps + 1, report_to=[], logging_steps=1,
        use_cpu=True, seed=0, disable_tqdm=True, save_strategy="no", learning_rate=1e-4,
        num_iterations=num_iterations,
    )  # fmt: skip
    tr = MixerGRPOTrainer(
        model=model, reward_funcs=_reward, args=args, train_dataset=ds, processing_class=tok,
        sampler=sampler, refill_rounds=10,
    )  # fmt: skip
    clock = {"trl": 0.0, "ours": 0.0, "learn": 0.0, "rounds": 0, "logps": 0.0}
    step_rows: list[dict] = []
    parent = GRPOTrainer._generate_and_score_completions
    ours = tr._generate_and_score_completions
    learn = sampler.learn

    def trl_part(self, inputs):
        t = time.perf_counter()
        try:
            return parent(self, inputs)
        finally:
            clock["trl"] += time.perf_counter() - t
            clock["rounds"] += 1

    def our_part(inputs):
        t = time.perf_counter()
        try:
            return ours(inputs)
        finally:
            clock["ours"] += time.perf_counter() - t

    logps = tr._get_per_token_logps_and_entropies

    def timed_logps(*a, **kw):
        if torch.is_grad_enabled():  # the training forward, not the old / reference pass
            return logps(*a, **kw)
        t = time.perf_counter()
        try:
            return logps(*a, **kw)
        finally:
            clock["logps"] += time.perf_counter() - t

    def learning(*a, **kw):
        t = time.perf_counter()
        try:
            return learn(*a, **kw)
        finally:
            clock["learn"] += time.perf_counter() - t

    class Steps(TrainerCallback):
        def on_step_begin(self, args, state, control, **kw):  # noqa: ANN001, ANN202, ARG002
            clock.update(trl=0.0, ours=0.0, learn=0.0, rounds=0, logps=0.0)
            n = tr.rollouts
            clock.update(groups=n["groups"], trained=n["trained_rollouts"], t0=time.perf_counter())

        def on_step_end(self, args, state, control, **kw):  # noqa: ANN001, ANN202, ARG002
            wall = time.perf_counter() - clock["t0"]
            refill = clock["ours"] - clock["trl"] + clock["learn"]
            n = tr.rollouts
            groups = n["groups"] - clock["groups"]
            untrained = groups - (n["trained_rollouts"] - clock["trained"]) // group
            logps_untrained = clock["logps"] * untrained / groups if groups else 0.0
            step_rows.append(
                {
                    "step": int(state.global_step),
                    "wall_s": wall,
                    "rounds": int(clock["rounds"]),
                    "trl_generate_and_score_s": clock["trl"],
                    "learn_s": clock["learn"],
                    "refill_s": refill,
                    "refill_share": refill / wall,
                    "groups": groups,
                    "groups_untrained": untrained,
                    "logps_s": clock["logps"],
                    "logps_untrained_s": logps_untrained,
                    "beyond_generation_share": (refill + logps_untrained) / wall,
                }
            )

    GRPOTrainer._generate_and_score_completions = trl_part
    tr._generate_and_score_completions, sampler.learn = our_part, learning
    tr._get_per_token_logps_and_entropies = timed_logps
    tr.add_callback(Steps())
    try:
        tr.train()
    finally:
        GRPOTrainer._generate_and_score_completions = parent
    timed = step_rows[1:]  # the first step warms up
    share = np.array([r["refill_share"] for r in timed])
    wall = sum(r["wall_s"] for r in timed)
    name = "DynamicSampling (refill)" if refill else "ProblemSampler (no refill)"
    return {
        "arm": name + (f", num_iterations={num_iterations}" if num_iterations > 1 else ""),
        "num_iterations": num_iterations,
        "steps": timed,
        "rollouts": tr.rollouts,
        "wall_s_mean": float(np.mean([r["wall_s"] for r in timed])),
        "rounds_mean": float(np.mean([r["rounds"] for r in timed])),
        # a timed window may hold no generating step (num_iterations=2 on a short run): NaN then
        "trl_per_round_s": _ratio(
            sum(r["trl_generate_and_score_s"] for r in timed), sum(r["rounds"] for r in timed)
        ),
        "refill_share_median": float(np.median(share)),
        "refill_share_max": float(share.max()),
        "refill_ms_mean": 1e3 * float(np.mean([r["refill_s"] for r in timed])),
        # over the timed steps together (with num_iterations=2 only every other step generates)
        "logps_share_of_trl": _ratio(
            sum(r["logps_s"] for r in timed), sum(r["trl_generate_and_score_s"] for r in timed)
        ),
        "logps_untrained_share": sum(r["logps_untrained_s"] for r in timed) / wall,
        "refill_share_total": sum(r["refill_s"] for r in timed) / wall,
        "beyond_generation_share": sum(r["refill_s"] + r["logps_untrained_s"] for r in timed)
        / wall,
    }


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 timed steps, 16 new tokens")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--tokens", type=int, default=None, help="max_completion_length")
    ap.add_argument("--prompts", type=int, default=8, help="prompts a generation batch")
    ap.add_argument("--group", type=int, default=8, help="completions a prompt")
    ap.add_argument("--out-dir", type=Path, default=None, help="results/ (--quick: results/quick/)")
    args = ap.parse_args(argv)
    args.out_dir = results_dir(args.out_dir, args.quick)
    steps = args.steps or (3 if args.quick else 8)
    tokens = args.tokens or (16 if args.quick else 48)
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        arms = [
            run_arm(refill, steps, tokens, tmp, args.prompts, args.group, iters)
            for refill, iters in ((True, 1), (False, 1), (True, 2))
        ]
    ours, base = arms[:2]
    for a in arms:
        print(
            f"{a['arm']}: {a['wall_s_mean']:.2f} s a step, {a['rounds_mean']:.1f} rounds, "
            f"TRL's generate-and-score {a['trl_per_round_s']:.2f} s a round; refill's own work "
            f"{a['refill_ms_mean']:.1f} ms a step = {100 * a['refill_share_median']:.2f}% of the "
            f"step (median; max {100 * a['refill_share_max']:.2f}%); old/ref log-probs "
            f"{100 * a['logps_share_of_trl']:.1f}% of TRL's generate-and-score, on groups not "
            f"trained {100 * a['logps_untrained_share']:.2f}% of the steps; beyond generation "
            f"{100 * a['beyond_generation_share']:.2f}%"
        )
    payload = {
        "benchmark": "trl_refill_overhead",
        "command": "benchmarks/mixing/trl_refill_overhead.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": stamp(),
        "loadavg_start": [round(x, 2) for x in load0],
        "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        "wall_s": round(time.perf_counter() - t0, 1),
        "settings": {
            "prompts": args.prompts,
            "group": args.group,
            "max_completion_length": tokens,
            "steps": steps,
        },
        "arms": arms,
        "per_round_ratio": ours["trl_per_round_s"] / base["trl_per_round_s"],
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / "trl_refill_overhead.json"
    path.write_text(json.dumps(payload, indent=1))
    print(f"load {payload['loadavg_start']} -> {payload['loadavg_end']}; wrote {path}")
    return payload


if __name__ == "__main__":
    main()
