"""How per-problem pass rates move during B2-spread's uniform GRPO run: what a frontier sampler could know.

Trains B2's policy with the uniform problem sampler and, at checkpoints, computes every training
problem's true pass probability p (exact here: one answer token). Reports per checkpoint the share
of problems with p in [0.1, 0.9], the zero-advantage share of groups of 8 expected under uniform
draws and under draws proportional to the true p (1 - p), and, between checkpoints, how often a
problem keeps its status (solved p > 0.98, failed p < 0.02, in band). Writes
benchmarks/results/frontier_dynamics.json.

    nice .venv/bin/python benchmarks/mixing/frontier_dynamics.py --seeds 3
    .venv/bin/python benchmarks/mixing/frontier_dynamics.py --quick
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import results_dir, stamp  # noqa: E402
from mixbench.frontier_rl import FrontierConfig, grpo_train, pass_probability, warm_policy  # noqa: E402
from mixbench.spread import make_problems  # noqa: E402

from mixer import ProblemSampler  # noqa: E402


def _status(p: np.ndarray) -> np.ndarray:
    return np.where(p > 0.98, 0, np.where(p < 0.02, 1, np.where((p >= 0.1) & (p <= 0.9), 2, 3)))


def run_seed(seed: int, cfg: dict, checkpoints: list[int]) -> dict:
    problems = make_problems(cfg["task"], seed, cfg["noise"], cfg["pool_scale"])
    model = warm_policy(seed, cfg)
    sampler = ProblemSampler(problems.groups(), cfg["prompts"], seed=seed)
    G = cfg["group"]
    snaps: dict[int, np.ndarray] = {}
    done = 0
    for c in checkpoints:
        if c > done:
            grpo_train(model, problems, sampler, cfg, seed + done, c - done)
            done = c
        snaps[c] = pass_probability(model, problems.tokens, problems.ref)
    out: dict = {"seed": seed, "checkpoints": []}
    for c, p in snaps.items():
        zero = p**G + (1 - p) ** G
        w = p * (1 - p)
        out["checkpoints"].append(
            {
                "step": c,
                "in_band_share": float(np.mean((p >= 0.1) & (p <= 0.9))),
                "zero_adv_uniform": float(zero.mean()),
                "zero_adv_ideal_pq": float((w * zero).sum() / max(w.sum(), 1e-12)),
            }
        )
    keep = []
    for a, b in zip(checkpoints, checkpoints[1:], strict=False):
        sa, sb = _status(snaps[a]), _status(snaps[b])
        keep.append(
            {
                "from": a,
                "to": b,
                **{
                    f"{name}_kept": float(np.mean(sb[sa == k] == k)) if (sa == k).any() else None
                    for k, name in enumerate(("solved", "failed", "in_band"))
                },
            }
        )
    out["persistence"] = keep
    out["draws_per_problem"] = done * cfg["prompts"] / len(problems.ref)
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out-dir", type=Path, default=None, help="results/ (--quick: results/quick/)")
    args = ap.parse_args(argv)
    args.out_dir = results_dir(args.out_dir, args.quick)
    cfg = FrontierConfig.make(args.quick, "spread")
    n = cfg["steps"]
    checkpoints = sorted(
        c for c in {0, n // 5, n // 5 + 10, n // 2, n // 2 + 10, n // 2 + 50, n} if c <= n
    )
    seeds = list(range(1 if args.quick else args.seeds))
    res = [run_seed(s, cfg, checkpoints) for s in seeds]
    print(
        f"B2-spread, uniform GRPO, seeds {seeds}, {res[0]['draws_per_problem']:.1f} draws per problem per run"
    )
    for i, c in enumerate(checkpoints):
        rows = [r["checkpoints"][i] for r in res]
        print(
            f"step {c:>3}: p in [0.1, 0.9] {np.mean([x['in_band_share'] for x in rows]):.3f}; "
            f"zero-advantage groups: uniform {np.mean([x['zero_adv_uniform'] for x in rows]):.3f}, "
            f"drawn by true p(1-p) {np.mean([x['zero_adv_ideal_pq'] for x in rows]):.3f}"
        )
    for i in range(len(checkpoints) - 1):
        rows = [r["persistence"][i] for r in res]
        vals = {}
        for k in ("solved_kept", "failed_kept", "in_band_kept"):
            got = [x[k] for x in rows if x[k] is not None]
            vals[k] = float(np.mean(got)) if got else float("nan")
        print(
            f"step {rows[0]['from']:>3} -> {rows[0]['to']:>3}: still solved {vals['solved_kept']:.2f}, "
            f"still failed {vals['failed_kept']:.2f}, still in band {vals['in_band_kept']:.2f}"
        )
    payload = {
        "benchmark": "frontier_dynamics",
        "command": "benchmarks/mixing/frontier_dynamics.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": stamp(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "config": dict(cfg),
        "runs": res,
    }
    out = args.out_dir / ("frontier_dynamics" + ("_quick" if args.quick else "") + ".json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=1))
    print(f"wrote {out}")
    return payload


if __name__ == "__main__":
    main()
