"""The ceiling of problem selection on B2-spread: can any sampler that only chooses which problems to
draw reach uniform's final pass rate with half of uniform's rollouts?

Uniform runs its full `steps` (500) and sets the target, its final held-out pass rate (mean over
seeds). Every other arm draws a fixed batch (64 prompts x 8) per step, so half of uniform's
rollouts is exactly half its steps: the other arms run only `half` steps (250; a run of fewer steps
is the same run cut short, there is no schedule), and the goal is met where the arm's curve reaches
the target by then. Arms are `benchmarks/mixing/frontier.py`'s, with `name[key=value]` overrides; the
oracle arms know the policy's true current pass rate (`CurrentPassRateOracle`, `rule=`).
Writes benchmarks/results/<name>.json.

    nice .venv/bin/python benchmarks/mixing/frontier_ceiling.py --seeds 10 --cache /tmp/fr-cache \\
        --arms oracle-current "oracle-current[rule='pq2']" "oracle-current[rule='chance']"
    .venv/bin/python benchmarks/mixing/frontier_ceiling.py --quick          # smoke check
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from frontier import KIND_NAMES, parse_arm, seed_priors  # noqa: E402
from mixbench.cli import results_dir, stamp  # noqa: E402
from mixbench.common import count_cached, machine, run_jobs  # noqa: E402
from mixbench.frontier_rl import FrontierConfig, run_frontier  # noqa: E402
from mixbench.report import write_json  # noqa: E402


def _first(curve: np.ndarray, steps: np.ndarray, target: float) -> float:
    hit = np.flatnonzero((curve >= target - 1e-12) & (steps > 0))
    return float(steps[hit[0]]) if hit.size else float("nan")


def summarize_ceiling(uniform: list[dict], arms: dict[str, list[dict]], half: int) -> dict:
    """Target (uniform's final mean), and per arm at step `half`: pass rate, its paired difference
    from uniform's final, the step where the mean curve first reaches the target (NaN: not by
    `half`), seeds reaching it by then, the zero-advantage share of the groups drawn until then."""
    base = {r["seed"]: r for r in uniform}
    target = float(np.mean([r["pass_rate"][-1] for r in uniform]))
    full = int(uniform[0]["steps"][-1])
    out: dict = {"target": target, "uniform_steps": full, "half": half, "arms": {}}
    for label, runs in {"uniform": uniform, **arms}.items():
        runs = sorted(runs, key=lambda r: r["seed"])
        steps = np.asarray(runs[0]["steps"])
        upto = steps <= half
        curves = np.array([r["pass_rate"] for r in runs])[:, upto]
        at_half = curves[:, -1]
        diff = np.array([a - base[r["seed"]]["pass_rate"][-1] for a, r in zip(at_half, runs)])
        reach = _first(curves.mean(0), steps[upto], target)
        per_seed = [_first(c, steps[upto], target) for c in curves]
        n_steps = int(half)
        groups = sum(sum(r["per_step"]["groups"][:n_steps]) for r in runs)
        zero = sum(sum(r["per_step"]["zero_groups"][:n_steps]) for r in runs)
        ro = np.array([r["rollouts_at"] for r in runs], dtype=np.float64)[:, upto].mean(0)
        rollouts_to = float(ro[steps[upto] == reach][0]) if np.isfinite(reach) else float("nan")
        per_kind = np.array([r["pass_rate_source"] for r in runs])[:, upto][:, -1].mean(0)
        out["arms"][label] = {
            "seeds": len(runs),
            "at_half_mean": float(at_half.mean()),
            "at_half_std": float(at_half.std(ddof=1)) if len(runs) > 1 else 0.0,
            "final_mean": float(curves[:, -1].mean()) if label != "uniform" else target,
            "at_half_minus_target": float(diff.mean()),
            "at_half_minus_target_se": float(diff.std(ddof=1) / np.sqrt(diff.size))
            if diff.size > 1
            else 0.0,
            "steps_to_target": reach,
            "rollouts_to_target": rollouts_to,
            "seeds_reaching_by_half": int(np.isfinite(per_seed).sum()),
            "steps_to_target_per_seed": per_seed,
            "zero_advantage_share": zero / max(groups, 1),
            "rollouts_at_half": float(ro[-1]),
            "per_kind_at_half": per_kind.tolist(),
            "curve_mean": curves.mean(0).tolist(),
        }
    return out


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arms", nargs="+", default=["oracle-current"], help="arms besides uniform")
    p.add_argument("--seeds", type=int, default=None, help="seeds (default 10; 2 with --quick)")
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--quick", action="store_true", help="tiny settings for a smoke check")
    p.add_argument("--name", default=None, help="output name (default frontier_ceiling[_quick])")
    p.add_argument("--out-dir", type=Path, default=None, help="results/ (--quick: results/quick/)")
    p.add_argument("--cache", type=Path, default=None, help="keep finished runs here")
    args = p.parse_args(argv)
    args.out_dir = results_dir(args.out_dir, args.quick)

    cfg = FrontierConfig.make(args.quick, "spread")
    half = cfg["steps"] // 2
    short = FrontierConfig(dict(cfg))
    short["steps"] = half
    seeds = list(
        range(args.first_seed, args.first_seed + (args.seeds or (2 if args.quick else 10)))
    )
    arms = [parse_arm(a) for a in args.arms if a != "uniform"]
    name = args.name or "frontier_ceiling" + ("_quick" if args.quick else "")
    started, mach, t0 = stamp(), machine(), time.perf_counter()
    priors = seed_priors("spread", seeds, cfg, arms, args.workers, args.cache)
    uni = parse_arm("uniform")
    jobs: list[dict[str, Any]] = [
        {"spec": uni, "seed": s, "cfg": cfg, "prior": None} for s in seeds
    ]
    jobs += [  # arm by arm, so an interrupted run leaves whole arms in the cache
        {"spec": a, "seed": s, "cfg": short, "prior": priors.get(s) if a.prior else None}
        for a in arms
        for s in seeds
    ]
    n_cached = count_cached(jobs, args.cache)
    runs = run_jobs(run_frontier, jobs, args.workers, cache=args.cache)
    wall = time.perf_counter() - t0
    by: dict[str, list[dict]] = {}
    for r in runs[len(seeds) :]:
        by.setdefault(r["label"], []).append(r)
    summ = summarize_ceiling(runs[: len(seeds)], by, half)
    payload = {
        "benchmark": "frontier_ceiling",
        "command": "benchmarks/mixing/frontier_ceiling.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": started,
        "reused_from_cache": n_cached,
        "wall_s": wall,
        "machine": mach,
        "config": dict(cfg),
        "seeds": seeds,
        "clean": runs[0]["clean"],
        "arms": [uni.to_json()] + [a.to_json() for a in arms],
        "summary": summ,
        "runs": [
            {
                "label": r["label"],
                "seed": r["seed"],
                "steps": r["steps"],
                "pass_rate": [round(x, 5) for x in r["pass_rate"]],
                "rollouts_at": r["rollouts_at"],
                "zero_groups": sum(r["per_step"]["zero_groups"]),
                "time_step_s": r["time_step_s"],
            }
            for r in runs
        ],
    }
    out = args.out_dir / f"{name}.json"
    write_json(out, payload)
    kinds = [KIND_NAMES.get(c, c) for c in runs[0]["clean"]]
    print(
        f"\nceiling of problem selection, B2-spread, seeds {seeds[0]}..{seeds[-1]}: target = "
        f"uniform's final after {summ['uniform_steps']} steps, {summ['target']:.4f}; other arms run "
        f"{half} steps (half of uniform's rollouts); wall {wall:.0f}s"
    )
    print(
        "| arm | at half (mean ± sd) | at half - uniform final (paired ± se) | steps to target | "
        "rollouts to target | x uniform | seeds reaching by half | zero-adv groups | "
        + " | ".join(kinds)
        + " |"
    )
    print("|---" * (8 + len(kinds)) + "|")
    for k, a in summ["arms"].items():
        st = a["steps_to_target"]
        ro = a["rollouts_to_target"]
        ratio = (
            "1.00"
            if k == "uniform"
            else "-"
            if not np.isfinite(ro)
            else f"{st / summ['uniform_steps']:.2f}"
        )
        print(
            f"| {k} | {a['at_half_mean']:.4f} ± {a['at_half_std']:.4f} | "
            f"{a['at_half_minus_target']:+.4f} ± {a['at_half_minus_target_se']:.4f} | "
            + (f"{st:.0f}" if np.isfinite(st) else f"not by {half}")
            + " | "
            + (f"{ro:,.0f}" if np.isfinite(ro) else "-")
            + f" | {ratio} | {a['seeds_reaching_by_half']}/{a['seeds']} | "
            f"{a['zero_advantage_share']:.2f} | "
            + " | ".join(f"{x:.3f}" for x in a["per_kind_at_half"])
            + " |"
        )
    print(f"wrote {out}")
    return payload


if __name__ == "__main__":
    main()
