"""Two B3 settings' runs of the same seeds side by side (b3v2.md section 22): per seed each run's
final held-out pass@1 (the target metric), the paired difference of `a` against `b` and against
`--baseline`'s, their mean and standard error, the zero-advantage share, and how concentrated
the draws are (train problems drawn at all; the share of draws on the most-drawn tenth).

    python benchmarks/code_rl/paired.py \\
        benchmarks/code_rl/results/greedy-rerun/v2-full-small-r16384x4x8-fill4-lean-lr0.0001/stack \\
        benchmarks/code_rl/results/harm-rerun/v2-full-small-r16384x4x8-fill4-lean-lr0.0001/stack \\
        --baseline benchmarks/code_rl/results/harm-rerun/v2-full-small-r16384x4x8-fill4-lean-lr0.0001/uniform
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np


def final(run: dict[str, Any]) -> float:
    last = run["curve"][-1]
    return float(last.get("pass1_target", last["pass1"]))


def concentration(run: dict[str, Any]) -> tuple[int, float]:
    """Train problems drawn at all, and the share of all draws on the most-drawn tenth."""
    per = np.sort(np.asarray(run["trace"]["draws_per_problem"], dtype=float))[::-1]
    top = max(1, len(per) // 10)
    return int((per > 0).sum()), float(per[:top].sum() / per.sum())


def zero_advantage(run: dict[str, Any]) -> float:
    t = run["trace"]
    return float(sum(map(sum, t["zero_advantage"])) / sum(map(sum, t["draws"])))


def _mean_se(x: list[float]) -> str:
    a = np.asarray(x)
    se = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
    return f"{a.mean():+.4f} (SE {se:.4f}, n {len(a)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path, help="an arm's folder of seed*.json run files")
    ap.add_argument("b", type=Path, help="the other arm's folder")
    ap.add_argument("--baseline", type=Path, help="a third folder both are paired against")
    args = ap.parse_args()
    seeds = sorted(int(p.stem[4:]) for p in args.a.glob("seed*.json") if (args.b / p.name).exists())
    if not seeds:
        raise SystemExit(f"no seed has a run file in both {args.a} and {args.b}")
    d_ab: list[float] = []
    d_a0: list[float] = []
    d_b0: list[float] = []
    for s in seeds:
        ra, rb = (json.loads((d / f"seed{s}.json").read_text()) for d in (args.a, args.b))
        fa, fb = final(ra), final(rb)
        d_ab.append(fa - fb)
        line = f"seed {s}: a {fa:.3f}, b {fb:.3f}, a - b {fa - fb:+.3f}"
        if args.baseline:
            f0 = final(json.loads((args.baseline / f"seed{s}.json").read_text()))
            d_a0.append(fa - f0)
            d_b0.append(fb - f0)
            line += f", baseline {f0:.3f}"
        (na, ta), (nb, tb) = concentration(ra), concentration(rb)
        line += (
            f"; problems drawn a {na} b {nb}, top tenth's share a {ta:.3f} b {tb:.3f}; "
            f"zero-advantage a {zero_advantage(ra):.3f} b {zero_advantage(rb):.3f}"
        )
        print(line)
    print("a - b:", _mean_se(d_ab))
    if args.baseline:
        print("a - baseline:", _mean_se(d_a0))
        print("b - baseline:", _mean_se(d_b0))


if __name__ == "__main__":
    main()
