"""The shared command line and `main` of mix_lm.py and mix_rl.py: arms, seeds, workers, outputs."""

from __future__ import annotations

import argparse
import ast
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mixbench.common import MixerSpec, count_cached, machine, run_jobs
from mixbench.report import (
    per_source_table,
    plot_curves,
    plot_weights,
    slim_runs,
    summarize,
    table,
    write_json,
)

__all__ = ["parse_arm", "base_parser", "RESULTS", "QUICK", "results_dir", "Bench", "bench_main"]

RESULTS = Path(__file__).resolve().parents[2] / "results"
#: Where a `--quick` run writes unless told otherwise: ignored by git (.gitignore), so a smoke run
#: leaves `git status` clean and the tracked results as they were.
QUICK = RESULTS / "quick"


def results_dir(out_dir: Path | None, quick: bool) -> Path:
    """`--out-dir` when given, else benchmarks/results/, or its ignored quick/ with `--quick`."""
    return out_dir if out_dir is not None else QUICK if quick else RESULTS


def parse_arm(text: str, defaults: dict[str, MixerSpec]) -> MixerSpec:
    """`name` from `defaults`, optionally with overrides: `acodm-advantage[sigma=0.1,warmup=0]`."""
    name, _, rest = text.partition("[")
    if name not in defaults:
        sys.exit(
            f"unknown arm {name!r}; choose from {', '.join(defaults)} (overrides as name[key=value,...])"
        )
    base = defaults[name]
    kw = dict(base.kw)
    if rest:
        if not rest.endswith("]"):
            sys.exit(f"bad arm {text!r}: overrides go as name[key=value,...]")
        try:
            call = ast.parse(f"f({rest[:-1]})", mode="eval").body
            assert isinstance(call, ast.Call) and not call.args
            for k in call.keywords:
                kw[k.arg] = ast.literal_eval(k.value)
        except (SyntaxError, ValueError, AssertionError):
            sys.exit(
                f"bad arm {text!r}: overrides go as name[key=value,...] with Python literal values"
            )
    return MixerSpec(text, base.policy, **kw)


def base_parser(description: str, seeds: int) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument(
        "--quick", action="store_true", help="tiny settings for a smoke check (well under a minute)"
    )
    p.add_argument(
        "--seeds", type=int, default=None, help=f"seeds per arm (default {seeds}; 2 with --quick)"
    )
    p.add_argument(
        "--workers", type=int, default=2, help="parallel processes, one torch thread each"
    )
    p.add_argument(
        "--first-seed", type=int, default=0, help="first seed (fresh seeds to confirm a choice)"
    )
    p.add_argument("--steps", type=int, default=None, help="override the number of training steps")
    p.add_argument(
        "--arms",
        nargs="+",
        default=None,
        help="arms to run (default: all); name[key=value,...] overrides constructor args",
    )
    p.add_argument(
        "--name",
        default=None,
        help="output file name, without extension, in --out-dir (default mix_lm / mix_rl; quick adds _quick)",
    )
    p.add_argument(
        "--out-dir",
        type=Path,
        default=None,
        help="where the JSON and PNGs go (benchmarks/results; --quick: its quick/)",
    )
    p.add_argument("--no-plots", action="store_true")
    p.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="keep each finished run here and reuse it on a rerun",
    )
    return p


def stamp() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


@dataclass(frozen=True)
class Bench:
    """What differs between mix_lm.py and mix_rl.py; `bench_main` does the rest.

    The text fields are format strings over params, steps, seeds, names (every source), clean,
    target and wall."""

    name: str  # benchmark name: the script is benchmarks/{name}.py, its default output {name}.json
    doc: str  # the script's docstring (its first line describes it in --help)
    seeds: int  # default seeds per arm (2 with --quick)
    make_cfg: Callable[[bool], dict]  # run settings, quick or full
    run: Callable[..., dict]  # run(spec, seed, cfg) -> one run's record
    arms: dict[str, MixerSpec]
    metric: str  # the curve in each run's record that the arms are compared on
    per: str  # the same metric per source
    higher_better: bool
    metric_name: str  # the metric in the table header
    names_key: str  # the JSON key of the sources' names
    intro: str  # printed before the tables
    per_title: str
    curves_ylabel: str
    curves_title: str
    weights_title: str
    default_arms: list[str] | None = None  # None: all of `arms`
    clean: list[str] | None = None  # the sources `per` covers (JSON "clean"), when not all
    focus: list[str] | None = None  # sources whose weights the table shows


def bench_main(bench: Bench, argv: list[str] | None = None) -> dict:
    """Run the arms over the seeds (reusing `--cache`), write {name}.json and PNGs, print tables."""
    args = base_parser(bench.doc.splitlines()[0], seeds=bench.seeds).parse_args(argv)
    args.out_dir = results_dir(args.out_dir, args.quick)
    cfg = bench.make_cfg(args.quick)
    if args.steps:
        cfg["steps"] = args.steps
    seeds = args.seeds or (2 if args.quick else bench.seeds)
    arms = [parse_arm(a, bench.arms) for a in (args.arms or bench.default_arms or list(bench.arms))]
    if "uniform" not in [a.label for a in arms]:
        arms.insert(0, bench.arms["uniform"])
    name = args.name or (f"{bench.name}_quick" if args.quick else bench.name)
    jobs = [
        {"spec": a, "seed": s, "cfg": cfg}
        for s in range(args.first_seed, args.first_seed + seeds)
        for a in arms
    ]
    n_cached = count_cached(jobs, args.cache)  # wall_s covers only the runs not reused
    t0 = time.perf_counter()
    started = stamp()
    mach = machine()
    runs = run_jobs(bench.run, jobs, args.workers, cache=args.cache)
    wall = time.perf_counter() - t0
    names = runs[0]["names"]
    summ = summarize(runs, bench.metric, bench.per, higher_better=bench.higher_better)
    payload = {
        "benchmark": bench.name,
        "command": f"benchmarks/{bench.name}.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": started,
        "reused_from_cache": n_cached,
        "wall_s": wall,
        "machine": mach,
        "config": dict(cfg),
        "seeds": seeds,
        bench.names_key: names,
        **({"clean": bench.clean} if bench.clean else {}),
        "params": runs[0]["params"],
        "arms": [a.to_json() for a in arms],
        "summary": summ,
        "runs": slim_runs(runs, 5),
    }
    out = args.out_dir / f"{name}.json"
    write_json(out, payload)
    per_names = bench.clean or names
    print(
        bench.intro.format(
            params=runs[0]["params"],
            steps=cfg["steps"],
            seeds=seeds,
            names=names,
            clean=bench.clean,
            target=summ["target"],
            wall=wall,
        )
    )
    print(table(summ, bench.metric_name, names, focus=bench.focus))
    print(f"\n{bench.per_title}:")
    print(per_source_table(summ, per_names))
    if not args.no_plots:
        plot_curves(
            summ, bench.curves_ylabel, args.out_dir / f"{name}_curves.png", bench.curves_title
        )
        plot_weights(summ, names, args.out_dir / f"{name}_weights.png", bench.weights_title)
    print(f"wrote {out}")
    return payload
