"""B2: mixers on GRPO (RL with verifiable rewards) over six generated task sources.

A tiny MLP policy is warmed up by supervised learning, then trained with GRPO on problems drawn
through MixedSampler from easy, medium, medium2, hard (too hard to learn yet), noisy (half the
references wrong) and repeated (eight problems) sources. Reports held-out pass rate on the clean
sources, steps to reach the uniform run's final pass rate, and the weight each mixer gave the
noisy and repeated sources. Writes benchmarks/results/mix_rl.json and PNGs.

    .venv/bin/python benchmarks/mix_rl.py            # full: 45 runs, 5-10 min on 2 cores
    .venv/bin/python benchmarks/mix_rl.py --quick    # smoke check
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import base_parser, parse_arm, stamp  # noqa: E402
from mixbench.common import MixerSpec, count_cached, machine, run_jobs  # noqa: E402
from mixbench.report import (  # noqa: E402
    per_source_table,
    plot_curves,
    plot_weights,
    slim_runs,  # noqa: E402
    summarize,
    table,
    write_json,
)
from mixbench.rl import RLConfig, run_rl  # noqa: E402
from mixbench.tasks import CLEAN, SOURCES  # noqa: E402

ARMS = {
    "uniform": MixerSpec("uniform", "uniform"),
    "static": MixerSpec("static", "static"),
    "odm": MixerSpec("odm", "odm", signal="adv_abs"),
    "advantage-bandit": MixerSpec("advantage-bandit", "advantage-bandit"),
    "acodm-advantage": MixerSpec("acodm-advantage", "acodm", reward="advantage"),
    "acodm-progress": MixerSpec("acodm-progress", "acodm", reward="progress", odm_signal="adv_abs"),
    "acodm-alignment": MixerSpec(
        "acodm-alignment", "acodm", reward="alignment", odm_signal="adv_abs"
    ),
    "acodm-target": MixerSpec("acodm-target", "acodm", reward="target", odm_signal="adv_abs"),
    "acodm-heldout": MixerSpec("acodm-heldout", "acodm", reward="heldout", odm_signal="adv_abs"),
    # prototype of a proposed reward (a subclass in mixbench/common.py, not in mixer/); not run by default
    "acodm-learnability": MixerSpec(
        "acodm-learnability", "acodm", reward="learnability", odm_signal="adv_abs"
    ),
}
DEFAULT_ARMS = [a for a in ARMS if a != "acodm-learnability"]


def main(argv: list[str] | None = None) -> dict:
    args = base_parser(__doc__.splitlines()[0], seeds=5).parse_args(argv)
    cfg = RLConfig.make(args.quick)
    if args.steps:
        cfg["steps"] = args.steps
    seeds = args.seeds or (2 if args.quick else 5)
    arms = [parse_arm(a, ARMS) for a in (args.arms or DEFAULT_ARMS)]
    if "uniform" not in [a.label for a in arms]:
        arms.insert(0, ARMS["uniform"])
    name = args.name or ("mix_rl_quick" if args.quick else "mix_rl")
    jobs = [
        {"spec": a, "seed": s, "cfg": cfg}
        for s in range(args.first_seed, args.first_seed + seeds)
        for a in arms
    ]
    n_cached = count_cached(jobs, args.cache)  # wall_s covers only the runs not reused
    t0 = time.perf_counter()
    started = stamp()
    mach = machine()
    runs = run_jobs(run_rl, jobs, args.workers, cache=args.cache)
    wall = time.perf_counter() - t0
    summ = summarize(runs, "pass_rate", "pass_rate_source", higher_better=True)
    payload = {
        "benchmark": "mix_rl",
        "command": "benchmarks/mix_rl.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": started,
        "reused_from_cache": n_cached,
        "wall_s": wall,
        "machine": mach,
        "config": dict(cfg),
        "seeds": seeds,
        "sources": list(SOURCES),
        "clean": list(CLEAN),
        "params": runs[0]["params"],
        "arms": [a.to_json() for a in arms],
        "summary": summ,
        "runs": slim_runs(runs, 5),
    }
    out = args.out_dir / f"{name}.json"
    write_json(out, payload)
    print(
        f"\nB2 GRPO, MLP policy {runs[0]['params']:,} params, {cfg['steps']} steps, {seeds} seeds, sources {list(SOURCES)}"
    )
    print(
        f"target = uniform final mean held-out pass rate on {list(CLEAN)}: {summ['target']:.4f}; wall {wall:.0f}s"
    )
    print(table(summ, "pass rate", list(SOURCES), focus=["noisy", "repeated"]))
    print("\nfinal held-out pass rate per clean source (mean over seeds):")
    print(per_source_table(summ, list(CLEAN)))
    if not args.no_plots:
        plot_curves(
            summ,
            "held-out pass rate (mean over clean sources)",
            args.out_dir / f"{name}_curves.png",
            "B2: GRPO over 6 task sources (mean ± sd over seeds)",
        )
        plot_weights(
            summ,
            list(SOURCES),
            args.out_dir / f"{name}_weights.png",
            "B2: sampling weight per source (mean over seeds)",
        )
    print(f"wrote {out}")
    return payload


if __name__ == "__main__":
    main()
