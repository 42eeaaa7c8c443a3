"""Train your own: curate problems with codemix, export them for TRL, and run GRPO with a source
mixer and the frontier sampler scoring candidates by the policy's reference likelihood.

B3's quick mode, written out (benchmarks/code_rl/bench.py --quick runs the same steps). The
problems are B3's parameterised Python function families and the model a small Llama trained here
from scratch, so it runs offline on a CPU in a few minutes; put your own JSONL and your own model
in their place. Prints the pre-training's progress, the held-out pass@1 before and after, and the
sampler's ledger; saves the trained model and tokenizer in OUT/model and the mixer's history in
OUT/mix_history.jsonl. Needs the trl extra (`pip install -e '.[trl]'`).

    OMP_NUM_THREADS=1 python examples/train_your_own.py --out out/train-your-own
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

try:
    import torch
    from code_rl.families import pretrain_pairs, problems
    from code_rl.model import SIZES, build_tokenizer, new_model, pretrain, save
    from code_rl.rollout import evaluate
    from datasets import load_from_disk
    from trl import GRPOConfig

    from curation.export import prompt_text
    from filters.reward import trl_correctness_reward
    from mixer import FrontierSampler, make_mixer
    from mixer.adapters.trl import MixerGRPOTrainer
except ImportError as e:  # one line naming the extra, not a traceback
    sys.exit(f"error: {Path(__file__).name} needs the trl extra (no module {e.name!r}): pip install -e '.[trl]'")


def codemix(*args: str) -> None:
    subprocess.run([str(Path(sys.executable).with_name("codemix")), *args], check=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("out/train-your-own"))
    ap.add_argument("--per-source", type=int, default=10)
    ap.add_argument("--size", default="small", choices=["tiny", "small", "base"])
    ap.add_argument("--pretrain-steps", type=int, default=600)
    ap.add_argument("--steps", type=int, default=6)
    a = ap.parse_args()
    torch.set_num_threads(1)
    a.out.mkdir(parents=True, exist_ok=True)

    # 1. problems as canonical JSONL, curated by the real build, exported for TRL with a held-out split
    jsonl = a.out / "problems.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in problems(limit=a.per_source)))
    codemix("build", "-s", str(jsonl), "-o", str(a.out / "build"), "-j", "2", "--force")
    codemix(
        "export",
        str(a.out / "build"),
        "--format",
        "trl",
        "--out",
        str(a.out / "trl"),
        "--split",
        "test=0.2",
    )
    data = load_from_disk(str(a.out / "trl"))
    train, held_out = data["train"], data["test"]

    # 2. a small code model: tokenizer and Llama trained here on other problems' reference programs
    pairs = [(prompt_text(r), ref) for r, ref in pretrain_pairs()]
    tok = build_tokenizer([p for p, _ in pairs] + [c for _, c in pairs], SIZES[a.size].vocab)
    model = new_model(tok, SIZES[a.size], seed=0)
    t0 = time.perf_counter()

    def progress(step: int) -> None:
        print(f"pre-training: step {step}/{a.pretrain_steps} ({time.perf_counter() - t0:.0f} s)", flush=True)

    print(f"pre-training a {a.size} model for {a.pretrain_steps} steps", flush=True)
    pretrain(model, tok, pairs, steps=a.pretrain_steps, on_checkpoint=progress, every=max(1, a.pretrain_steps // 10))
    print("held-out pass@1 before GRPO:", round(evaluate(model, tok, held_out, n=2)["pass1"], 3))

    # 3. GRPO through TRL: ACODM mixes the sources, the frontier sampler picks the problems
    prompts, group = 4, 4
    names = sorted(set(train["source"]))
    sampler = FrontierSampler.from_dataset(
        train,
        batch_size=prompts,  # generation_batch_size // num_generations
        mixer=make_mixer("acodm", len(names), names=names, seed=0),
        score="learnability-low",
        explore=0.25,
        difficulty_column=None,  # this build has no difficulty yet: `codemix rank` writes one
        std_column=None,
        seed=0,
    )
    args = GRPOConfig(
        output_dir=str(a.out / "grpo"),
        max_steps=a.steps,
        per_device_train_batch_size=prompts * group,
        num_generations=group,
        generation_batch_size=prompts * group,
        max_completion_length=48,
        learning_rate=3e-4,
        beta=0.0,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        disable_tqdm=True,
    )
    trainer = MixerGRPOTrainer(
        model=model,
        reward_funcs=[trl_correctness_reward],  # the sandbox grades every completion
        args=args,
        train_dataset=train,
        processing_class=tok,
        sampler=sampler,
    )
    sampler.set_scorer(trainer.reference_scorer())  # the policy's log-likelihood of each reference
    trainer.train()

    print("held-out pass@1 after GRPO:", round(evaluate(model, tok, held_out, n=2)["pass1"], 3))
    print(
        "ledger:",
        {k: sampler.ledger[k] for k in ("rollouts", "zero_advantage_groups", "scored_prompts")},
    )
    print(
        "source weights:", dict(zip(names, sampler.mixer.weights().round(3).tolist(), strict=True))
    )
    save(model, tok, a.out / "model")  # transformers' from_pretrained / AutoTokenizer read it back
    history = sampler.mixer.save_history(a.out / "mix_history.jsonl")
    print(f"model and tokenizer saved in {a.out / 'model'}; mixer history in {history} "
          f"(draw it with: codemix plot-mix {history})")


if __name__ == "__main__":
    main()
