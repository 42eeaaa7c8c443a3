"""B1: mixers on byte-level language-model training over five real text domains.

Runs every arm (Uniform, Static by domain size, ODM, ACODM with each reward signal that applies)
for several seeds, writes benchmarks/results/mix_lm.json plus curve and weight PNGs, and prints a
table with each arm's steps to reach the uniform run's final validation loss.

    .venv/bin/python benchmarks/mix_lm.py            # full: 21 runs, about 7 min idle, 25-30 min at load 6-13
    .venv/bin/python benchmarks/mix_lm.py --quick    # smoke check
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import base_parser, parse_arm, stamp  # noqa: E402
from mixbench.common import MixerSpec, count_cached, machine, run_jobs  # noqa: E402
from mixbench.lm import LMConfig, run_lm  # noqa: E402
from mixbench.report import (  # noqa: E402
    per_source_table,
    plot_curves,
    plot_weights,
    slim_runs,  # noqa: E402
    summarize,
    table,
    write_json,
)

ARMS = {
    "uniform": MixerSpec("uniform", "uniform"),
    "static": MixerSpec("static", "static"),
    "odm": MixerSpec("odm", "odm", signal="loss"),
    "acodm-progress": MixerSpec("acodm-progress", "acodm", reward="progress"),
    "acodm-alignment": MixerSpec("acodm-alignment", "acodm", reward="alignment"),
    "acodm-target": MixerSpec("acodm-target", "acodm", reward="target"),
    "acodm-heldout": MixerSpec("acodm-heldout", "acodm", reward="heldout"),
}


def main(argv: list[str] | None = None) -> dict:
    args = base_parser(__doc__.splitlines()[0], seeds=3).parse_args(argv)
    cfg = LMConfig.make(args.quick)
    if args.steps:
        cfg["steps"] = args.steps
    seeds = args.seeds or (2 if args.quick else 3)
    arms = [parse_arm(a, ARMS) for a in (args.arms or list(ARMS))]
    if "uniform" not in [a.label for a in arms]:
        arms.insert(0, ARMS["uniform"])
    name = args.name or ("mix_lm_quick" if args.quick else "mix_lm")
    jobs = [
        {"spec": a, "seed": s, "cfg": cfg}
        for s in range(args.first_seed, args.first_seed + seeds)
        for a in arms
    ]
    n_cached = count_cached(jobs, args.cache)  # wall_s covers only the runs not reused
    t0 = time.perf_counter()
    started = stamp()
    mach = machine()
    runs = run_jobs(run_lm, jobs, args.workers, cache=args.cache)
    wall = time.perf_counter() - t0
    names = runs[0]["names"]
    summ = summarize(runs, "val_loss", "val_loss_domain", higher_better=False)
    payload = {
        "benchmark": "mix_lm",
        "command": "benchmarks/mix_lm.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": started,
        "reused_from_cache": n_cached,
        "wall_s": wall,
        "machine": mach,
        "config": dict(cfg),
        "seeds": seeds,
        "domains": names,
        "params": runs[0]["params"],
        "arms": [a.to_json() for a in arms],
        "summary": summ,
        "runs": slim_runs(runs, 5),
    }
    out = args.out_dir / f"{name}.json"
    write_json(out, payload)
    print(
        f"\nB1 byte LM, {runs[0]['params']:,} params, {cfg['steps']} steps, {seeds} seeds, domains {names}"
    )
    print(
        f"target = uniform final mean validation loss {summ['target']:.4f} nats/byte; wall {wall:.0f}s"
    )
    print(table(summ, "val loss", names))
    print("\nfinal validation loss per domain (mean over seeds):")
    print(per_source_table(summ, names))
    if not args.no_plots:
        plot_curves(
            summ,
            "validation loss (mean over domains, nats/byte)",
            args.out_dir / f"{name}_curves.png",
            "B1: byte LM over 5 text domains (mean ± sd over seeds)",
        )
        plot_weights(
            summ,
            names,
            args.out_dir / f"{name}_weights.png",
            "B1: sampling weight per domain (mean over seeds)",
        )
    print(f"wrote {out}")
    return payload


if __name__ == "__main__":
    main()
