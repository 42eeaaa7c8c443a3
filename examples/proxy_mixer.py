"""AC-ODM's proxy mode: learn a mixing policy over short runs of a small model, then use it.

    python examples/proxy_mixer.py --proxy-runs 24 --steps 80

The four synthetic sources of train_with_mixer.py (`copy`, `arith`, `words`, `noise`). Phase 1
trains a `ProxyACODM` over `--proxy-runs` runs of a small TinyLM (d=32) on other seeds; each run
reports the held-out loss (the held-out slices of the three learnable sources) before training
and at every segment end, and `end_run()` learns from what followed each segment's mixture.
Phase 2 deploys the policy and trains the target TinyLM (d=64) with it and, on the same seed,
with uniform weights; it prints both held-out losses and the weights the policy chose. The
policy file can be loaded into any later run: `ProxyACODM(4, horizon=steps, policy_file=path)`.

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
from train_with_mixer import TinyLM, encode, sample_loss, synthetic_sources

from mixer import MixedSampler, Mixer, ProxyACODM, Uniform
from mixer.adapters.torch import loss_feedback


def train(
    model: TinyLM,
    mixer: Mixer,
    data: torch.Tensor,
    groups: dict[str, np.ndarray],
    held: torch.Tensor,
    steps: int,
    batch: int,
    seed: int,
) -> float:
    """One training run drawing batches by `mixer`; returns the final held-out loss. A learning
    ProxyACODM gets the held-out loss at the start and at every segment end."""
    torch.manual_seed(seed)
    sampler = MixedSampler(groups, batch, mixer=mixer, seed=seed, num_steps=steps)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

    def heldout() -> float:
        with torch.no_grad():
            return float(sample_loss(model, data[held]).mean())

    learning = isinstance(mixer, ProxyACODM) and not mixer.deployed
    if isinstance(mixer, ProxyACODM):
        mixer.start_run(eval_loss=heldout() if learning else None)
    for step, idx in enumerate(sampler, start=1):
        losses = sample_loss(model, data[idx])
        opt.zero_grad()
        losses.mean().backward()
        opt.step()
        at_end = learning and (step % mixer.segment_len == 0 or step == steps)
        fb = loss_feedback(
            losses, sampler.last_sources, len(groups), None, heldout() if at_end else None
        )
        mixer.update(fb)
    return heldout()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--proxy-runs", type=int, default=24)
    ap.add_argument("--steps", type=int, default=80)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--segments", type=int, default=4)
    ap.add_argument("--policy-file", type=Path, default=Path("out/proxy_mixer.pt"))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)
    sources = synthetic_sources(400, 0)
    names = list(sources)
    data = torch.tensor([encode(t) for k in names for t in sources[k]])
    groups = {k: np.arange(i * 400, (i + 1) * 400) for i, k in enumerate(names)}
    # the held-out objective: what the model should learn (noise has nothing to learn, and its
    # held-out loss would reward keeping the model's predictions flat)
    held = torch.tensor(np.concatenate([g[-16:] for k, g in groups.items() if k != "noise"]))
    train_groups = {k: g[:-16] for k, g in groups.items()}

    mixer = ProxyACODM(
        len(names), names=names, horizon=args.steps, segments=args.segments, seed=args.seed
    )
    t0 = time.perf_counter()
    for r in range(args.proxy_runs):
        seed = 1000 + r  # proxy runs never use the target's seed
        torch.manual_seed(seed)
        final = train(TinyLM(d=32), mixer, data, train_groups, held, args.steps, args.batch, seed)
        mixer.end_run()
        print(f"proxy run {r + 1}/{args.proxy_runs}: final held-out loss {final:.3f}")
    mixer.deploy()
    args.policy_file.parent.mkdir(parents=True, exist_ok=True)
    torch.save(mixer.state_dict(), args.policy_file)
    print(f"proxy training: {time.perf_counter() - t0:.1f}s; policy saved to {args.policy_file}")

    target = ProxyACODM(
        len(names),
        names=names,
        horizon=args.steps,
        segments=args.segments,
        policy_file=args.policy_file,
    )
    results = {}
    for label, m in (("proxy-trained", target), ("uniform", Uniform(len(names), names=names))):
        torch.manual_seed(args.seed)
        results[label] = train(
            TinyLM(d=64), m, data, train_groups, held, args.steps, args.batch, args.seed
        )
        if m is target:
            used = np.mean([h["weights"] for h in m.history], axis=0)
            print(
                "weights used:", {k: round(float(x), 3) for k, x in zip(names, used, strict=True)}
            )
    print("target run, held-out loss:", {k: round(v, 3) for k, v in results.items()})


if __name__ == "__main__":
    main()
