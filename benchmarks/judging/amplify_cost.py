"""Amplify's cost per row, a baseline checkout against this one, in the same run.

Runs `benchmarks/judging/amplify.py --parts yield,strength --no-unamplified` (this checkout's copy: the
same measuring code for both) twice at the same time, once importing the baseline's packages and
once this checkout's, each on its own sandbox of `--workers` workers, so both see the same load.
Per set: amplify and verify seconds per row, problems kept by verify after amplification, the
amplify statuses, and the held-out mutants the amplified suites kill (`part_strength`: a seed
neither stage uses, judged at a fixed limit). The load average is written before and after.

    .venv/bin/python benchmarks/judging/amplify_cost.py --baseline /path/to/baseline/checkout
        [--sets leetcodedataset,codecontests-subset] [--offset 0] [--limit 300] [--workers 1]

`--baseline` is a checkout of the baseline commit (`git archive COMMIT | tar -x -C DIR`), `--ours`
one of the measured commit (default: this checkout).
Writes benchmarks/results/amplify_cost.json and prints a table. `--smoke`: 4 rows of
codecontests-subset, both sides this checkout (a check that the script runs).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benchmarks" / "results" / "amplify_cost.json"


def _side(root: Path, args: argparse.Namespace, out: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, str(REPO / "benchmarks" / "judging" / "amplify.py"), "--parts", "yield,strength",
           "--no-unamplified", "--sets", args.sets, "--limit", str(args.limit), "--offset", str(args.offset),
           "--workers", str(args.workers), "--out", str(out)]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1")
    return subprocess.Popen(cmd, env=env, cwd=root, stdout=subprocess.DEVNULL)


def _commit(root: Path) -> str:
    r = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)  # fmt: skip
    return r.stdout.strip() if r.returncode == 0 else "(not a git checkout)"


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """What one side measured, per set."""
    out = {}
    for name, entry in report["sets"].items():
        y, s = entry["yield"], entry.get("strength") or {}
        out[name] = {
            "problems": y["problems"],
            "amplify_s_per_row": y["seconds_per_problem"]["amplify"],
            "verify_s_per_row": y["seconds_per_problem"]["verify_after"],
            "kept": y["ours"]["kept"],
            "amplify_status": y["amplify_status"],
            "held_out_mutants_killed_mean": (s.get("amplified") or {}).get("mean"),
            "held_out_problems": s.get("problems"),
            "load": y["load"],
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--ours", type=Path, default=REPO,
                    help="the checkout measured as ours (default this one; a snapshot keeps edits out)")  # fmt: skip
    ap.add_argument("--sets", default="leetcodedataset,codecontests-subset")
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--offset", type=int, default=0, help="skip the first N rows of each set")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", type=Path, default=None, help="--smoke: results/quick/")
    args = ap.parse_args()
    args.out = args.out or (RESULTS.parent / "quick" / RESULTS.name if args.smoke else RESULTS)
    if args.smoke:
        args.baseline, args.ours, args.sets, args.limit = REPO, REPO, "codecontests-subset", 4
    if args.baseline is None:
        ap.error("--baseline is required (or --smoke)")
    args.out = args.out.resolve()  # the sides run in their own checkouts
    tmp = args.out.with_suffix("")
    outs = {"baseline": Path(f"{tmp}_baseline.json"), "ours": Path(f"{tmp}_ours.json")}
    load0 = os.getloadavg()[0]
    procs = {
        "baseline": _side(args.baseline, args, outs["baseline"]),
        "ours": _side(args.ours, args, outs["ours"]),
    }
    for side, p in procs.items():
        if p.wait() != 0:
            raise SystemExit(f"{side} side failed (exit {p.returncode})")
    sides = {side: summary(json.loads(path.read_text())) for side, path in outs.items()}
    report = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": f"{os.cpu_count()} cpus",
        "baseline": str(args.baseline), "baseline_commit": _commit(args.baseline),
        "ours": str(args.ours), "ours_commit": _commit(args.ours), "workers_each": args.workers,
        "load": [round(load0, 2), round(os.getloadavg()[0], 2)],
        "sides": sides,
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    for name in sides["ours"]:
        b, o = sides["baseline"][name], sides["ours"][name]
        ratio = b["amplify_s_per_row"] / o["amplify_s_per_row"] if o["amplify_s_per_row"] else None
        print(f"{name} ({o['problems']} rows): amplify s/row {b['amplify_s_per_row']} -> "
              f"{o['amplify_s_per_row']} ({ratio and round(ratio, 2)}x); verify s/row "
              f"{b['verify_s_per_row']} -> {o['verify_s_per_row']}; kept {b['kept']} -> {o['kept']}; "
              f"held-out mutants killed {b['held_out_mutants_killed_mean']} -> "
              f"{o['held_out_mutants_killed_mean']}; load {report['load']}")  # fmt: skip
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
