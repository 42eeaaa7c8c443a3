"""The per-problem pass rates the sampling replay (`benchmarks/mixing/sampling_replay.py`) draws rewards
from: B3's frozen model (the checkpoint every B3 arm started from) sampled `--samples` times at
temperature 1 on every train problem of B3's frozen export, graded by codemix's TRL reward, and
written with each problem's source and curated difficulty to `benchmarks/data/b3_step0_rates.json`.

    OMP_NUM_THREADS=1 python benchmarks/mixing/replay_rates.py --samples 16
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # benchmarks/: code_rl
sys.path.insert(0, str(HERE.parents[1]))
OUT = HERE.parent / "data" / "b3_step0_rates.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    import torch
    from code_rl.frozen import load_frozen
    from code_rl.model import load
    from code_rl.rollout import grade, prompt_ids, sample
    from datasets import load_from_disk

    frozen = load_frozen(HERE.parent / "code_rl" / "frozen" / "small")
    if frozen is None:
        raise SystemExit("B3's frozen inputs are missing (benchmarks/code_rl/frozen/small)")
    root = HERE.parent / "code_rl" / "frozen" / "small"
    train = load_from_disk(str(root / "trl"))["train"]
    model, tok = load(root / "checkpoint")
    torch.manual_seed(args.seed)
    t0 = time.perf_counter()
    texts, _ = sample(model, tok, prompt_ids(tok, train["prompt"]), args.samples)
    t1 = time.perf_counter()
    gt = [g for g in train["ground_truth"] for _ in range(args.samples)]
    r = grade(gt, texts).reshape(len(train), args.samples)
    t2 = time.perf_counter()
    passes = np.nan_to_num(r, nan=0.0).sum(axis=1)
    faults = np.isnan(r).sum(axis=1)
    rec = {
        "what": "B3 step-0 pass rates: the frozen model, temperature 1, 64 new tokens",
        "fingerprint": frozen["fingerprint"],
        "samples": args.samples,
        "seed": args.seed,
        "generate_s": round(t1 - t0, 1),
        "grade_s": round(t2 - t1, 1),
        "load": os.getloadavg()[0],
        "problems": [
            {
                "problem_id": pid,
                "source": src,
                "difficulty": d,
                "difficulty_std": s,
                "passes": float(k),
                "faults": int(f),
            }
            for pid, src, d, s, k, f in zip(
                train["problem_id"], train["source"], train["difficulty"],
                train["difficulty_std"], passes.tolist(), faults.tolist(), strict=True,
            )  # fmt: skip
        ],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rec, indent=0))
    p = passes / args.samples
    print(f"{len(p)} problems, mean pass rate {p.mean():.3f}, live {(p > 0).mean():.2f}, "
          f"{t1 - t0:.0f} s generating, {t2 - t1:.0f} s grading -> {args.out}")


if __name__ == "__main__":
    main()
