"""Cost of a problem sampler per training step (draw + update), against `MixedSampler` in the same run.

Simulated rewards (a fixed policy, pass rate sigmoid(-b) on problems of logit difficulty b), so only
the sampler is timed. `frontier-scored` has a scorer that looks its signal up in an array, so the
time is the sampler's own work around scoring (4 candidates per draw); the forward passes a real
scorer runs are the trainer's cost, counted in `ledger["scored_prompts"]`. Writes
benchmarks/results/frontier_overhead.json.

    nice .venv/bin/python benchmarks/mixing/frontier_overhead.py
    .venv/bin/python benchmarks/mixing/frontier_overhead.py --quick
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import results_dir, stamp  # noqa: E402

from mixer import GRESO, FrontierSampler, MixedSampler, ProblemSampler  # noqa: E402


def _time(
    sampler, p: np.ndarray, steps: int, group: int, rng: np.random.Generator, cpu: bool = False
) -> float:
    """Mean seconds per step of next_batch + feedback (the mixer's update for MixedSampler);
    `cpu`: this process's CPU seconds (less moved by other jobs on a shared machine)."""
    from mixer import feedback_from_rewards

    clock = time.process_time if cpu else time.perf_counter
    total = 0.0
    for _ in range(steps):
        t0 = clock()
        idx = np.asarray(sampler.next_batch())
        t1 = clock()
        rep = np.repeat(idx, group)
        r = (rng.random(rep.size) < p[rep]).astype(float)
        t2 = clock()
        if isinstance(sampler, ProblemSampler):
            sampler.learn(rep, r, weights_id=sampler.last_weights_id, group_size=group)
        else:
            fb = feedback_from_rewards(
                r, np.repeat(sampler.last_sources, group), len(sampler.names)
            )
            sampler.mixer.update(fb)
        total += (t1 - t0) + (clock() - t2)
    return total / steps


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out-dir", type=Path, default=None, help="results/ (--quick: results/quick/)")
    ap.add_argument("--samplers", help="comma-separated: only these (default: all)")
    ap.add_argument("--sizes", help="comma-separated problem counts (default by --quick)")
    ap.add_argument("--steps", type=int, help="timed steps per sampler (default by --quick)")
    args = ap.parse_args(argv)
    args.out_dir = results_dir(args.out_dir, args.quick)
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    if args.sizes:
        sizes = [int(x) for x in args.sizes.split(",")]
    steps = args.steps or (5 if args.quick else 20)
    only = set(args.samplers.split(",")) if args.samplers else None
    batch, group, n_src = 256, 8, 4
    rows = []
    for n in sizes:
        rng = np.random.default_rng(0)
        b = rng.normal(0, 2, n)
        p = 1 / (1 + np.exp(b))
        groups = {f"s{i}": np.arange(i * n // n_src, (i + 1) * n // n_src) for i in range(n_src)}
        difficulty = 1 / (1 + np.exp(-(b + rng.normal(0, 1, n))))
        signal = np.log(p) + rng.normal(0, 1, n)  # a reference log-likelihood, biased
        row = {"problems": n, "batch": batch, "group": group, "steps": steps}
        frontier = {"difficulty": difficulty, "mixer": "advantage-bandit", "seed": 0}
        low = {"score": "learnability-low", "explore": 0.25}
        samplers = {
            "mixed": MixedSampler(groups, batch, mixer="advantage-bandit", seed=0),
            "greso": GRESO(groups, batch, mixer="advantage-bandit", seed=0),
            "frontier": FrontierSampler(groups, batch, **frontier),
            "stack": FrontierSampler(groups, batch, difficulty=difficulty, seed=0),
            "frontier_proportional": FrontierSampler(
                groups, batch, **frontier, draw="proportional"
            ),
            "frontier_low": FrontierSampler(groups, batch, **frontier, **low),
            "frontier_scored": FrontierSampler(
                groups, batch, **frontier, **low, scorer=lambda idx, s=signal: s[idx]
            ),
        }
        for name, sampler in samplers.items():
            if only is not None and name not in only:
                continue
            _time(sampler, p, 2, group, rng)  # warm up
            row[f"{name}_ms"] = 1e3 * _time(sampler, p, steps, group, rng)
            if only is not None:
                row[f"{name}_cpu_ms"] = 1e3 * _time(sampler, p, steps, group, rng, cpu=True)
        rows.append(row)
        if only is not None:  # a subset: its times only
            print(
                f"{n:>9,} problems: "
                + ", ".join(f"{k} {v:.2f}" for k, v in row.items() if k.endswith("_ms"))
            )
            continue
        row["frontier_vs_mixed"] = row["frontier_ms"] / row["mixed_ms"]
        row["scored_vs_low"] = row["frontier_scored_ms"] / row["frontier_low_ms"]
        print(
            f"{n:>9,} problems: MixedSampler {row['mixed_ms']:.2f} ms/step, GRESO {row['greso_ms']:.2f}, "
            f"FrontierSampler {row['frontier_ms']:.2f} ({row['frontier_vs_mixed']:.1f}x; proportional "
            f"draws {row['frontier_proportional_ms']:.2f}), the default stack {row['stack_ms']:.2f}; "
            f"p(1-p)^2 + explore 0.25 {row['frontier_low_ms']:.2f}, the same with a scorer "
            f"{row['frontier_scored_ms']:.2f} ({row['scored_vs_low']:.2f}x)"
        )
    payload = {
        "benchmark": "frontier_overhead",
        "command": "benchmarks/mixing/frontier_overhead.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": stamp(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "rows": rows,
    }
    name = "frontier_overhead" + ("_quick" if args.quick else "")
    out = args.out_dir / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=1))
    print(f"load average {payload['loadavg']}; wrote {out}")
    return payload


if __name__ == "__main__":
    main()
