"""B1's headroom, shown before any mixer runs: does some fixed mixture reach uniform's final loss in <= 0.6x its steps?

An offline grid search over group mixtures (the issue asks for "a documented offline search"):
every candidate puts a share t on B1's target (code) domains, 1 - t on its auxiliary domains,
nothing on its low-value ones, uniform within each group (`GRID`). Each candidate trains on the
proxy seeds (1000, 1001: other data order and initialisation than the evaluation's) next to
uniform; the candidate that reaches uniform's final target loss first (mean curve over the proxy
seeds; ties by final loss) is then run on the evaluation seeds 0-4 next to uniform. Writes
benchmarks/results/mix_lm_headroom.json and prints both tables.

    .venv/bin/python benchmarks/mixing/mix_headroom.py --cache /tmp/mb/lm    # 20 runs, ~5 min idle
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import results_dir, stamp  # noqa: E402
from mixbench.common import PROXY_SEED0, MixerSpec, machine, run_jobs  # noqa: E402
from mixbench.domains import AUXILIARY, LOW_VALUE, TARGET  # noqa: E402
from mixbench.lm import LMConfig, load_corpus, run_lm  # noqa: E402
from mixbench.report import summarize, table, write_json  # noqa: E402

GRID = (1.0, 0.85, 0.7)  # the target domains' share; the rest goes to the auxiliary ones


def group_mixture(names: list[str], target_share: float) -> list[float]:
    """Weights over `names`: `target_share` spread evenly over the target domains, the rest over
    the auxiliary ones, zero on the low-value ones."""
    t = [n for n in names if n in TARGET]
    a = [n for n in names if n in AUXILIARY]
    w = []
    for n in names:
        if n in LOW_VALUE:
            w.append(0.0)
        elif n in TARGET:
            w.append(target_share / len(t))
        else:
            w.append((1.0 - target_share) / len(a) if a else 0.0)
    return w


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--proxy-seeds", type=int, default=2)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--out-dir", type=Path, default=None, help="results/ (--quick: results/quick/)")
    args = ap.parse_args(argv)
    args.out_dir = results_dir(args.out_dir, args.quick)
    cfg = LMConfig.make(args.quick)
    names = load_corpus(cfg["cap_bytes"], cfg["ctx"], cfg["val_windows"])[0]
    started, mach, t0 = stamp(), machine(), time.perf_counter()
    uniform = MixerSpec("uniform", "uniform")
    cands = [
        MixerSpec(f"grid[target={t:g}]", "static", weights=group_mixture(names, t)) for t in GRID
    ]
    pseeds = [PROXY_SEED0 + i for i in range(args.proxy_seeds)]
    jobs = [{"spec": a, "seed": s, "cfg": cfg} for s in pseeds for a in [uniform, *cands]]
    search = summarize(
        run_jobs(run_lm, jobs, args.workers, cache=args.cache),
        "val_loss",
        "val_loss_domain",
        higher_better=False,
    )
    print("search on the proxy seeds", pseeds)
    print(table(search, "val loss", names))

    def rank(label: str) -> tuple[float, float]:
        a = search["arms"][label]
        s = a["steps_to_target"]
        return (s if np.isfinite(s) else float("inf"), a["final_mean"])

    best = min((c for c in cands), key=lambda c: rank(c.label))
    jobs = [{"spec": a, "seed": s, "cfg": cfg} for s in range(args.seeds) for a in [uniform, best]]
    evals = summarize(
        run_jobs(run_lm, jobs, args.workers, cache=args.cache),
        "val_loss",
        "val_loss_domain",
        higher_better=False,
    )
    print(f"\nthe chosen mixture {best.label} on the evaluation seeds 0-{args.seeds - 1}")
    print(table(evals, "val loss", names))
    per_seed = evals["arms"][best.label]["steps_to_target_per_seed"]
    base = evals["arms"]["uniform"]["steps_to_target"]
    print("per seed, steps to uniform's final (mean curve):", per_seed, "of", base)
    slim = lambda summ: {  # noqa: E731
        "target": summ["target"],
        "steps": summ["steps"],
        "arms": {
            k: {kk: vv for kk, vv in v.items() if kk != "weights_mean_curve"}
            for k, v in summ["arms"].items()
        },
    }
    payload = {
        "benchmark": "mix_lm_headroom",
        "command": "benchmarks/mixing/mix_headroom.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": started,
        "wall_s": time.perf_counter() - t0,
        "machine": mach,
        "config": dict(cfg),
        "domains": names,
        "target_domains": [n for n in names if n in TARGET],
        "low_value": [n for n in names if n in LOW_VALUE],
        "grid": {c.label: c.kw["weights"] for c in cands},
        "proxy_seeds": pseeds,
        "search": slim(search),
        "chosen": best.label,
        "evaluation": slim(evals),
    }
    out = write_json(
        args.out_dir / ("mix_lm_headroom" + ("_quick" if args.quick else "") + ".json"), payload
    )
    print("wrote", out)
    return payload


if __name__ == "__main__":
    main()
