"""The mixer inside TRL's real GRPOTrainer (tiny GPT-2 built offline, CPU): draws per source
against the weights, the credit error a "current weights" mixer would have made, and the time the
sampler + mixer take against the trainer step.

    python benchmarks/mixer_in_trainers.py --steps 40
Writes benchmarks/results/mixer_in_trainers.json.
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

SOURCES = ["easy", "hard", "mid"]


def _model_and_tokenizer():
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {
        c: i for i, c in enumerate(["<pad>", "<eos>", *"abcdefghijklmnopqrstuvwxyz0123456789 "])
    }
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<pad>"))
    tk.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="<eos>")
    cfg = GPT2Config(
        vocab_size=len(vocab), n_positions=64, n_embd=16, n_layer=1, n_head=2,
        bos_token_id=1, eos_token_id=1, pad_token_id=0,
    )  # fmt: skip
    torch.manual_seed(0)
    return GPT2LMHeadModel(cfg), tok


def _reward(completions, source, **kw):
    """'mid' prompts get mixed groups (0 then 1), 'hard' rarely, 'easy' never: |advantage| differs."""
    return [
        float(s == "mid") * (i % 2) + float(s == "hard") * (i % 4 == 1)
        for i, s in enumerate(source)
    ]


def run(policy: str, steps: int) -> dict:
    import trl
    from datasets import Dataset

    from mixer import make_mixer
    from mixer.adapters.trl import MixerGRPOTrainer

    mixer = make_mixer(policy, 3, names=SOURCES, seed=0)
    drew: dict[int, np.ndarray] = {}
    now: list[np.ndarray] = []
    cost = {"draw_s": 0.0, "update_s": 0.0}
    issue, update = mixer.issue, mixer.update

    def timed_issue():
        wid, w = issue()
        drew[wid] = w.copy()
        return wid, w

    def timed_update(fb):
        now.append(mixer.weights().copy())
        t = time.perf_counter()
        update(fb)
        cost["update_s"] += time.perf_counter() - t

    mixer.issue, mixer.update = timed_issue, timed_update
    model, tok = _model_and_tokenizer()
    ds = Dataset.from_dict({"prompt": [f"p{i} " for i in range(60)], "source": SOURCES * 20})
    with tempfile.TemporaryDirectory() as out:
        args = trl.GRPOConfig(
            output_dir=out, per_device_train_batch_size=6, num_generations=2,
            max_completion_length=3, max_steps=steps, report_to=[], logging_steps=1000,
            use_cpu=True, save_strategy="no", seed=0, disable_tqdm=True,
        )  # fmt: skip
        tr = MixerGRPOTrainer(
            model=model, reward_funcs=_reward, args=args, train_dataset=ds,
            processing_class=tok, mixer=mixer,
        )  # fmt: skip
        next_batch = tr.mixed_sampler.next_batch

        def timed_next_batch():
            t = time.perf_counter()
            out_ = next_batch()
            cost["draw_s"] += time.perf_counter() - t - 0.0
            return out_

        tr.mixed_sampler.next_batch = timed_next_batch
        t0 = time.perf_counter()
        tr.train()
        wall = time.perf_counter() - t0
    hist = mixer.history
    credited = np.array([h["weights"] for h in hist])
    drawing = np.array([drew[h["weights_id"]] for h in hist])
    current = np.array(now)
    counts = np.array([h["counts"] for h in hist])
    prompts = counts.sum(1, keepdims=True)
    return {
        "policy": policy,
        "steps": len(hist),
        "draws": len(drew),
        "draws_per_source": dict(zip(SOURCES, counts.sum(0).tolist(), strict=True)),
        "expected_per_source": dict(
            zip(SOURCES, (drawing * prompts).sum(0).round(2).tolist(), strict=True)
        ),
        "credit_error_now": float(np.abs(credited - drawing).max()),
        "credit_error_current_weights": float(np.abs(current - drawing).max()),
        "steps_where_current_differs": int((np.abs(current - drawing).max(1) > 1e-12).sum()),
        "final_weights": dict(zip(SOURCES, mixer.weights().round(3).tolist(), strict=True)),
        "trainer_s_per_step": wall / len(hist),
        "mixer_s_per_step": (cost["draw_s"] + cost["update_s"]) / len(hist),
        "mixer_share_of_step": (cost["draw_s"] + cost["update_s"]) / wall,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--policies", default="advantage-bandit,acodm")
    ap.add_argument(
        "--out", default=str(Path(__file__).parent / "results" / "mixer_in_trainers.json")
    )
    a = ap.parse_args()
    rows = [run(p, a.steps) for p in a.policies.split(",")]
    res = {
        "command": " ".join(["python", *sys.argv]),
        "load_avg": os.getloadavg(),
        "machine": f"{os.cpu_count()} cores",
        "runs": rows,
    }
    Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
    for r in rows:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
