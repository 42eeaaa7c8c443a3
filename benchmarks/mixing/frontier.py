"""Frontier sampling in GRPO: rollouts (not steps) to reach uniform's final pass rate, per problem sampler.

B2's policy, warm-up and GRPO step (`mixbench/rl.py`) on B2-spread (`--task spread`: three sources
that each mix B2's task kinds, from already solved to hopeless), on B2-hardmix (`--task hardmix`:
the same with mostly hard sources) or on B2's own six sources (`--task b2`). Arms: uniform over
problems; DAPO's dynamic sampling, online difficulty filtering (pass-rate band 0.2-0.8) and GRESO,
each refilling its batch; `FrontierSampler` without a prior and with the curated difficulty of
several qualities (labels only, IRT on 1 or 8 attempts of three other models per problem, and the
policy's own initial pass rate as an oracle upper reference); `frontier-scored*`, the frontier
sampler scoring candidates by the policy's log-likelihood of their reference answer with a fixed
bias per problem (`signal_noise`, nats; `signal_fresh` adds noise per call); source mixers alone
and with the frontier sampler under them. Every generated rollout counts, discarded or not, and
scoring passes are counted beside them. Writes benchmarks/results/frontier_<task>.json.

    nice .venv/bin/python benchmarks/mixing/frontier.py --task spread --seeds 10 --cache /tmp/fr-cache
    nice .venv/bin/python benchmarks/mixing/frontier.py --task b2 --seeds 10 --cache /tmp/fr-cache
    nice .venv/bin/python benchmarks/mixing/frontier.py --task hardmix --seeds 10 --cache /tmp/fr-cache \
        --arms uniform "frontier-scored[score='learnability-low',explore=0.25,signal_noise=1.0]"
    .venv/bin/python benchmarks/mixing/frontier.py --quick          # smoke check (under 2 minutes)
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import results_dir, stamp  # noqa: E402
from mixbench.common import MixerSpec, count_cached, machine, run_jobs  # noqa: E402
from mixbench.curated import QUALITIES, PriorSpec, curated_priors  # noqa: E402
from mixbench.frontier_report import rollout_table, summarize_rollouts  # noqa: E402
from mixbench.frontier_rl import FrontierConfig, SamplerArm, run_frontier  # noqa: E402
from mixbench.report import per_source_table, slim_runs, write_json  # noqa: E402
from mixbench.spread import TASKS  # noqa: E402

BANDIT = MixerSpec("advantage-bandit", "advantage-bandit")
STATIC = MixerSpec("static", "static")  # by source size, as B2's static
ARMS = {
    "uniform": SamplerArm("uniform", "uniform"),
    "dapo": SamplerArm("dapo", "dapo"),
    "band": SamplerArm("band", "band", band=(0.2, 0.8)),
    "greso": SamplerArm("greso", "greso"),
    "frontier-noprior": SamplerArm("frontier-noprior", "frontier"),
    "frontier-label": SamplerArm("frontier-label", "frontier", prior="label"),
    "frontier-irt1": SamplerArm("frontier-irt1", "frontier", prior="irt-1"),
    "frontier": SamplerArm("frontier", "frontier", prior="irt-8"),
    "frontier-oracle": SamplerArm("frontier-oracle", "frontier", prior="oracle"),
    "oracle-current": SamplerArm("oracle-current", "oracle-current"),
    "frontier-explore25": SamplerArm("frontier-explore25", "frontier", prior="irt-8", explore=0.25),
    "frontier-bandscore": SamplerArm("frontier-bandscore", "frontier", prior="irt-8", score="band"),
    # candidates scored by the policy's log-likelihood of the reference answer (no rollout)
    "frontier-scored": SamplerArm("frontier-scored", "frontier", prior="irt-8", signal_noise=0.0),
    "frontier-scored-noprior": SamplerArm("frontier-scored-noprior", "frontier", signal_noise=0.0),
    "frontier-scored+advantage-bandit": SamplerArm(
        "frontier-scored+advantage-bandit",
        "frontier",
        mixer=BANDIT,
        prior="irt-8",
        signal_noise=0.0,
    ),
    "frontier-scored+static": SamplerArm(
        "frontier-scored+static", "frontier", mixer=STATIC, prior="irt-8", signal_noise=0.0
    ),
    "advantage-bandit": SamplerArm("advantage-bandit", "uniform", mixer=BANDIT),
    "static": SamplerArm("static", "uniform", mixer=STATIC),
    "frontier+advantage-bandit": SamplerArm(
        "frontier+advantage-bandit", "frontier", mixer=BANDIT, prior="irt-8"
    ),
    "frontier+static": SamplerArm("frontier+static", "frontier", mixer=STATIC, prior="irt-8"),
}
DEFAULT_ARMS = {
    # B2-spread's sources are the same size, so static by size is uniform: the bandit is the mixer
    "spread": [
        a
        for a in ARMS
        if a not in ("static", "frontier+static", "frontier-explore25") and "scored" not in a
    ],
    # B2-hardmix (sources of equal size: static by size is uniform): the B2-spread list
    "hardmix": [
        a
        for a in ARMS
        if a not in ("static", "frontier+static", "frontier-explore25") and "scored" not in a
    ],
    # B2: static by size is its best source mixer (tied with the bandit, and free)
    "b2": [
        "uniform",
        "dapo",
        "band",
        "greso",
        "frontier-noprior",
        "frontier",
        "frontier-oracle",
        "static",
        "frontier+static",
    ],
}
QUICK_ARMS = [
    "uniform",
    "dapo",
    "greso",
    "frontier-noprior",
    "frontier",
    "frontier+advantage-bandit",
]
#: The held-out kinds (B2's clean sources), by what they ask.
KIND_NAMES = {"easy": "copy", "medium": "add", "medium2": "max", "hard": "muladd"}


def parse_arm(text: str) -> SamplerArm:
    """An arm of ARMS by name, optionally with sampler keywords: `frontier[explore=0.25,power=2]`
    (`model={'tau': 0.5}` for the pass-rate model's `PassRateSettings`; the commands on
    benchmarks/pages/frontier.md say `model_kwargs`, its name before issue 52)."""
    name, _, rest = text.partition("[")
    if name not in ARMS:
        sys.exit(
            f"unknown arm {name!r}; choose from {', '.join(ARMS)} (overrides as name[key=value])"
        )
    base = ARMS[name]
    kw = dict(base.kw)
    if rest:
        try:
            if not rest.endswith("]"):
                raise SyntaxError
            call = ast.parse(f"f({rest[:-1]})", mode="eval").body
            if not isinstance(call, ast.Call) or call.args:
                raise SyntaxError
            for k in call.keywords:
                kw[k.arg] = ast.literal_eval(k.value)
        except (SyntaxError, ValueError):
            sys.exit(f"bad arm {text!r}: overrides go as name[key=value,...] with Python literals")
    return SamplerArm(text, base.sampler, mixer=base.mixer, prior=base.prior, **kw)


def seed_priors(
    task: str,
    seeds: list[int],
    cfg: FrontierConfig,
    arms: list[SamplerArm],
    workers: int,
    cache: Path | None,
) -> dict[int, dict]:
    """Each seed's curated difficulty priors (`mixbench.curated`), when an arm uses one."""
    if not any(a.prior for a in arms):
        return {}
    jobs = [{"spec": PriorSpec(task), "seed": s, "cfg": cfg} for s in seeds]
    return {
        s: res["priors"]
        for s, res in zip(seeds, run_jobs(curated_priors, jobs, workers, cache=cache))
    }


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--task", choices=TASKS, default="spread")
    p.add_argument("--quick", action="store_true", help="tiny settings for a smoke check")
    p.add_argument(
        "--seeds", type=int, default=None, help="seeds per arm (default 10; 2 with --quick)"
    )
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--steps", type=int, default=None)
    p.add_argument(
        "--set",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="override run settings, e.g. prompts=32 (numbers only)",
    )
    p.add_argument(
        "--arms", nargs="+", default=None, help="arms (default per task); name[key=value] overrides"
    )
    p.add_argument("--name", default=None, help="output name (default frontier_<task>[_quick])")
    p.add_argument("--out-dir", type=Path, default=None, help="results/ (--quick: results/quick/)")
    p.add_argument("--cache", type=Path, default=None, help="keep finished runs and priors here")
    args = p.parse_args(argv)
    args.out_dir = results_dir(args.out_dir, args.quick)

    cfg = FrontierConfig.make(args.quick, args.task)
    if args.steps:
        cfg["steps"] = args.steps
    for item in args.set:
        key, _, value = item.partition("=")
        if key not in cfg or key == "task" or not value:
            p.error(f"--set {item!r}: settings are {', '.join(k for k in cfg if k != 'task')}")
        try:
            cfg[key] = type(cfg[key])(float(value)) if isinstance(cfg[key], int) else float(value)
        except ValueError:
            p.error(f"--set {item!r}: {key} takes a number")
    seeds = list(
        range(args.first_seed, args.first_seed + (args.seeds or (2 if args.quick else 10)))
    )
    names = args.arms or (QUICK_ARMS if args.quick else DEFAULT_ARMS[args.task])
    if "uniform" not in names:
        names = ["uniform", *names]
    arms = [parse_arm(n) for n in names]
    name = args.name or f"frontier_{args.task}" + ("_quick" if args.quick else "")
    started, mach, t0 = stamp(), machine(), time.perf_counter()

    priors = seed_priors(args.task, seeds, cfg, arms, args.workers, args.cache)
    jobs = [
        {"spec": a, "seed": s, "cfg": cfg, "prior": priors.get(s) if a.prior else None}
        for s in seeds
        for a in arms
    ]
    n_cached = count_cached(jobs, args.cache)
    runs = run_jobs(run_frontier, jobs, args.workers, cache=args.cache)
    wall = time.perf_counter() - t0
    summ = summarize_rollouts(runs)
    prior_quality = {
        q: {
            "spearman_vs_policy_mean": float(
                np.mean([priors[s][q]["spearman_vs_policy"] for s in priors])
            ),
            "difficulty_std_mean": float(np.mean([priors[s][q]["mean_std"] for s in priors])),
            "build_rollouts_per_problem": priors[seeds[0]][q].get("build_rollouts", 0)
            / max(len(priors[seeds[0]][q]["difficulty"]), 1),
        }
        for q in QUALITIES
        if priors
    }
    payload = {
        "benchmark": "frontier",
        "command": "benchmarks/mixing/frontier.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": started,
        "reused_from_cache": n_cached,
        "wall_s": wall,
        "machine": mach,
        "config": dict(cfg),
        "seeds": seeds,
        "sources": runs[0]["names"],
        "clean": runs[0]["clean"],
        "params": runs[0]["params"],
        "arms": [a.to_json() for a in arms],
        "prior_quality": prior_quality,
        "summary": summ,
        "runs": [
            {k: v for k, v in r.items() if k != "per_step"}
            | {"zero_groups": sum(r["per_step"]["zero_groups"])}
            for r in slim_runs(runs, 10)
        ],
    }
    out = args.out_dir / f"{name}.json"
    write_json(out, payload)
    print(
        f"\nfrontier benchmark, task {args.task} (sources {runs[0]['names']}), {cfg['steps']} steps x "
        f"{cfg['prompts']} prompts x {cfg['group']} completions, seeds {seeds[0]}..{seeds[-1]}\n"
        f"target = uniform's final mean held-out pass rate {summ['target']:.4f} "
        f"(reached at {summ['rollouts_baseline']:,.0f} rollouts); wall {wall:.0f}s"
    )
    print(rollout_table(summ))
    if prior_quality:
        print(
            "\nprior quality (Spearman of curated difficulty with the policy's initial failure probability):"
        )
        for q, v in prior_quality.items():
            print(
                f"  {q}: {v['spearman_vs_policy_mean']:.3f} (mean difficulty_std {v['difficulty_std_mean']:.3f}, "
                f"{v['build_rollouts_per_problem']:.0f} build rollouts per problem)"
            )
    print("\nfinal held-out pass rate per kind (mean over seeds):")
    print(per_source_table(summ, [f"{c} ({KIND_NAMES.get(c, c)})" for c in runs[0]["clean"]]))
    print(f"wrote {out}")
    return payload


if __name__ == "__main__":
    main()
