"""Train a small character-level language model in a plain PyTorch loop with an online data mixer.

    python examples/train_with_mixer.py --policy acodm --reward heldout --steps 300
    python examples/train_with_mixer.py --policy odm --shards OUT     # a curated build's shards
    codemix plot-mix out/mix_history.jsonl                           # weights over time (PNG)

Four synthetic sources by default: `copy` (a repeated motif: learnt at once), `arith` (sums:
learnable), `words` (Zipf-distributed pseudo-words: learnable, slowly) and `noise` (random
characters: never learnable). A policy that chases raw loss (ODM) drifts toward `noise`; one that
rewards progress on each source's held-out slice (ACODM with reward="heldout", the default) or
the alignment with the held-out gradient (reward="target") should not.

On a CPU, one torch thread per process is much faster on small models than torch's default
(a tiny-model TRL step: 26 s with the default threads on 2 cores, about 3 s with one): this script
sets `OMP_NUM_THREADS=1` unless you set it yourself.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before torch starts its threads

import numpy as np
import torch
from torch import nn

from mixer import GradientSketch, MixedSampler, make_mixer
from mixer.adapters.torch import loss_feedback, per_source_sketches

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789+=; .,()_:\n"
SEQ = 48


def synthetic_sources(n: int, seed: int = 0) -> dict[str, list[str]]:
    """Four sources of text with very different learnability."""
    rng = np.random.default_rng(seed)
    words = ["".join(rng.choice(list("abcdefghij"), rng.integers(2, 6))) for _ in range(60)]
    zipf = 1.0 / np.arange(1, 61)
    zipf /= zipf.sum()
    out: dict[str, list[str]] = {"copy": [], "arith": [], "words": [], "noise": []}
    for _ in range(n):
        out["copy"].append(("abc " * 20)[: SEQ + 1])
        s = ""
        while len(s) <= SEQ:
            a, b = rng.integers(0, 50, 2)
            s += f"{a}+{b}={a + b};"
        out["arith"].append(s[: SEQ + 1])
        out["words"].append(" ".join(rng.choice(words, 20, p=zipf))[: SEQ + 1].ljust(SEQ + 1))
        out["noise"].append("".join(rng.choice(list(ALPHABET), SEQ + 1)))
    return out


def encode(text: str) -> list[int]:
    ids = [ALPHABET.index(c) if c in ALPHABET else 0 for c in text.lower()[: SEQ + 1]]
    return ids + [ALPHABET.index(" ")] * (SEQ + 1 - len(ids))


class TinyLM(nn.Module):
    """A two-layer causal transformer over characters."""

    def __init__(self, vocab: int = len(ALPHABET), d: int = 64) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(SEQ, d))
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True)
        self.body = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(SEQ))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.emb(x) + self.pos[: x.size(1)]
        return self.head(self.body(h, mask=self.mask, is_causal=True))


def sample_loss(model: nn.Module, batch: torch.Tensor) -> torch.Tensor:
    """Per-sample mean next-character cross-entropy."""
    logits = model(batch[:, :-1])
    tok = nn.functional.cross_entropy(logits.transpose(1, 2), batch[:, 1:], reduction="none")
    return tok.mean(dim=1)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--policy", default="acodm", help="uniform, static, odm, acodm, advantage-bandit"
    )
    ap.add_argument(
        "--reward",
        default="heldout",
        help="ACODM reward: heldout, target, progress, alignment, advantage",
    )
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument(
        "--shards", type=Path, help="curated build directory (OUT) to read statements from"
    )
    ap.add_argument("--group-by", default="source")
    ap.add_argument("--history", type=Path, default=Path("out/mix_history.jsonl"))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)

    if args.shards:
        sampler = MixedSampler.from_shards(
            args.shards, args.batch, group_by=args.group_by, seed=args.seed
        )
        texts = [str(t) for t in sampler.dataset.column("statement").to_pylist()]
        names = sampler.names
        groups = {k: sampler.groups[i] for i, k in enumerate(names)}
    else:
        sources = synthetic_sources(400, args.seed)
        names = list(sources)
        texts = [t for k in names for t in sources[k]]
        groups = {k: np.arange(i * 400, (i + 1) * 400) for i, k in enumerate(names)}
    data = torch.tensor([encode(t) for t in texts])
    # a held-out slice per source: its loss per source (heldout reward), its gradient (target)
    held = {k: g[-16:] for k, g in groups.items()}
    train_groups = {k: g[:-16] for k, g in groups.items()}

    kw = {"reward": args.reward, "horizon": args.steps} if args.policy == "acodm" else {}
    mixer = make_mixer(args.policy, len(names), names=names, seed=args.seed, **kw)
    sampler = MixedSampler(
        train_groups, args.batch, mixer=mixer, seed=args.seed, num_steps=args.steps
    )
    model = TinyLM()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    sketch = GradientSketch(dim=128, seed=args.seed)
    held_idx = torch.tensor(np.concatenate(list(held.values())))
    t_train = t_mix = 0.0
    for step, idx in enumerate(sampler):
        t0 = time.perf_counter()
        losses = sample_loss(model, data[idx])
        grads = target = dev = None
        acodm = args.policy == "acodm"
        if acodm and args.reward in ("alignment", "target"):  # gradients of the output layer only
            grads = per_source_sketches(
                losses, sampler.last_sources, len(names), model.head.parameters(), sketch
            )
        if acodm and args.reward == "target":
            held_loss = sample_loss(model, data[held_idx]).mean()
            target = sketch.project(torch.autograd.grad(held_loss, list(model.head.parameters())))
        opt.zero_grad()
        losses.mean().backward()
        opt.step()
        eval_loss = None
        if acodm and args.reward == "heldout":
            with torch.no_grad():
                dev = [
                    float(sample_loss(model, data[torch.tensor(v)]).mean()) for v in held.values()
                ]
        elif step % 10 == 0:
            with torch.no_grad():
                eval_loss = float(sample_loss(model, data[held_idx]).mean())
        t1 = time.perf_counter()
        fb = loss_feedback(
            losses,
            sampler.last_sources,
            len(names),
            grads,
            eval_loss,
            dev_loss=dev,
            target_sketch=target,
        )
        mixer.update(fb)
        t2 = time.perf_counter()
        t_train += t1 - t0
        t_mix += t2 - t1
        if step % 50 == 0 or step == args.steps - 1:
            w = " ".join(f"{k}={x:.2f}" for k, x in zip(names, mixer.weights(), strict=True))
            print(f"step {step:4d}  loss {losses.mean().item():.3f}  weights {w}")
    with torch.no_grad():
        per = {k: float(sample_loss(model, data[torch.tensor(v)]).mean()) for k, v in held.items()}
    print("held-out loss per source:", {k: round(v, 3) for k, v in per.items()})
    print(
        f"mixer overhead: {1e6 * t_mix / args.steps:.0f} us/step = {100 * t_mix / t_train:.3f}% of training time"
    )
    mixer.save_history(args.history)
    print(f"history written to {args.history}; draw it with: codemix plot-mix {args.history}")


if __name__ == "__main__":
    main()
