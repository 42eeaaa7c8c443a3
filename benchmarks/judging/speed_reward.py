"""Speed reward against a single wall-clock run, on pairs of correct programs of known speed ratio.

Each pair is the same loop program; the slower one repeats (factor - 1) x of the work and throws it
away. For every factor (1.1, 1.3, 2, 10) and both directions (candidate faster / slower than the
reference), each trial judges the pair with:
  (a) naive: one run each, candidate "faster" when its wall time is lower (always decides);
  (b) ours: `speed_reward` binary form (interleaved CPU-time runs, overhead taken off, sign test +
      noise floor; may answer "tie").
Identical programs measure reward variance (ours: graded form; naive: its 0/1 answer).
Run once with the machine as it is and once with a CPU burner per core (bounded, killed at the end).
Also: instruction-count mode (valgrind) on a few pairs (cost, repeatability), and grading throughput
for a DeepCoder-size step (1,024 completions of CodeContests problems from ../shared/data).

    .venv/bin/python benchmarks/judging/speed_reward.py [--trials 15] [--trials-13 50] [--identical 30]
        [--n 150000] [--loads idle,burn] [--throughput 1024] [--instr 2]
Writes benchmarks/results/speed_reward.json and prints tables.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from filters.reward import SpeedConfig, grade_many, measure_speed
from filters.sandbox import Sandbox, default_workers

RESULTS = Path(__file__).resolve().parents[1] / "results" / "speed_reward.json"
SHARED = (
    Path(__file__).resolve().parents[2].parent
    / "shared"
    / "data"
    / "codecontests-subset300.jsonl.gz"
)


def program(work: float) -> str:
    """n iterations that make the answer, then (work - 1) x n more of the same, thrown away."""
    return (
        "n = int(input())\n"
        "def work(k):\n    s = 0\n    for i in range(k):\n        s += i * i % 7\n    return s\n"
        f"r = work(n)\nwork(int(n * {work - 1.0!r}))\nprint(r)\n"
    )


def problem(n: int, reference_work: float) -> dict[str, Any]:
    out = f"{sum(i * i % 7 for i in range(n))}\n"
    return {
        "problem_id": "bench/loop",
        "test_type": "stdio",
        "tests": [{"input": f"{n}\n", "output": out}],
        "solutions": [program(reference_work)],
        "time_limit_s": 10.0,
    }


def naive(sb: Sandbox, prob: dict[str, Any], cand: str) -> str:
    """One wall-clock run of each (reference first, then candidate): 'faster' or 'slower'."""
    r = sb.run(prob, prob["solutions"][0])
    c = sb.run(prob, cand)
    return "faster" if c.wall_ms < r.wall_ms else "slower"


def burners(seconds: float) -> list[subprocess.Popen]:
    code = f"import time\nt = time.time() + {seconds}\nwhile time.time() < t:\n    pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(os.cpu_count() or 1)]


def decisions(
    sb: Sandbox, n: int, factors: list[float], trials: int, trials_13: int, identical: int
) -> dict[str, Any]:
    cfg = SpeedConfig(mode="binary")
    out: dict[str, Any] = {"factors": {}, "load_before": os.getloadavg()[0]}
    t0 = time.time()
    for f in factors:
        k = trials_13 if f == 1.3 else trials
        rows = {
            "ours": {"correct": 0, "wrong": 0, "tie": 0},
            "naive": {"correct": 0, "wrong": 0},
            "trials": 2 * k,
            "ours_repeats": [],
            "ours_seconds": [],
        }
        for i in range(2 * k):
            cand_faster = i % 2 == 0
            prob = problem(n, f if cand_faster else 1.0)
            cand = program(1.0 if cand_faster else f)
            truth = "faster" if cand_faster else "slower"
            s = time.time()
            res = measure_speed(prob, cand, sandbox=sb, config=cfg)
            rows["ours_seconds"].append(time.time() - s)
            got = res.pooled.outcome if res.pooled else "tie"
            rows["ours_repeats"].append(res.pooled.n if res.pooled else 0)
            rows["ours"]["tie" if got == "tie" else "correct" if got == truth else "wrong"] += 1
            rows["naive"]["correct" if naive(sb, prob, cand) == truth else "wrong"] += 1
        rows["ours_mean_repeats"] = statistics.mean(rows.pop("ours_repeats"))
        rows["ours_mean_seconds"] = statistics.mean(rows.pop("ours_seconds"))
        out["factors"][str(f)] = rows
        print(
            f"  {f}x: ours {rows['ours']}  naive {rows['naive']}  "
            f"({rows['ours_mean_repeats']:.1f} rounds, {rows['ours_mean_seconds']:.2f} s per judgement)",
            flush=True,
        )
    graded, naive_r = [], []
    for _ in range(identical):
        prob = problem(n, 1.3)
        graded.append(measure_speed(prob, program(1.3), sandbox=sb).reward)
        naive_r.append(1.0 if naive(sb, prob, program(1.3)) == "faster" else 0.0)
    out["identical"] = {
        "trials": identical,
        "ours_rewards": graded,
        "ours_variance": statistics.pvariance(graded),
        "naive_variance": statistics.pvariance(naive_r),
        "naive_mean": statistics.mean(naive_r),
    }
    print(
        f"  identical programs: ours variance {out['identical']['ours_variance']:.4f} "
        f"(rewards {sorted(set(graded))}), naive variance {out['identical']['naive_variance']:.4f}",
        flush=True,
    )
    out["load_after"] = os.getloadavg()[0]
    out["seconds"] = time.time() - t0
    return out


def instructions(sb: Sandbox, n: int, pairs: int) -> dict[str, Any]:
    res: dict[str, Any] = {"pairs": []}
    for f in (1.1, 1.3)[:pairs]:
        prob = problem(n, f)
        runs = []
        for _ in range(2):
            s = time.time()
            r = measure_speed(prob, program(1.0), sandbox=sb, measure="valgrind", mode="binary")
            runs.append(
                {
                    "seconds": time.time() - s,
                    "measure": r.measure,
                    "ratio": r.pooled.ratio if r.pooled else None,
                    "outcome": r.pooled.outcome if r.pooled else None,
                    "note": r.note,
                }
            )
        res["pairs"].append({"factor": f, "runs": runs})
        print(
            f"  instructions {f}x: "
            + ", ".join(
                f"{x['outcome']} ratio {x['ratio']:.4f} in {x['seconds']:.1f} s" for x in runs
            ),
            flush=True,
        )
    return res


def codecontests(limit: int) -> list[dict[str, Any]]:
    out = []
    with gzip.open(SHARED, "rt") as fh:
        for line in fh:
            r = json.loads(line)
            tests = r["tests"] if isinstance(r["tests"], list) else ast.literal_eval(r["tests"])
            out.append(
                {
                    "problem_id": r["id"],
                    "test_type": "stdio",
                    "tests": tests,
                    "solutions": [r["solution"]],
                    "time_limit_s": 10.0,
                }
            )
            if len(out) == limit:
                break
    return out


def throughput(sb: Sandbox, total: int, per_problem: int = 16) -> dict[str, Any]:
    if not SHARED.exists():
        print("  throughput: ../shared/data is absent, skipped")
        return {"skipped": "no shared data"}
    probs = codecontests(max(1, total // per_problem))
    items = []
    for pi, p in enumerate(probs):
        for k in range(per_problem):
            kind = k % 4
            if kind in (0, 1):  # the reference solution, made distinct so nothing is deduplicated
                text = f"Here is my solution.\n```python\n{p['solutions'][0]}\n# variant {k}\n```"
            elif kind == 2:  # a plausible wrong program: another problem's solution
                other = probs[(pi + 1) % len(probs)]["solutions"][0]
                text = f"```python\n{other}\n# variant {k}\n```"
            else:
                text = f"I am not sure how to solve this ({k})."
            items.append((p, text))
    items = items[:total]
    s = time.time()
    grades = grade_many(items, sandbox=sb, on_system_error="none")
    secs = time.time() - s
    verdicts: dict[str, int] = {}
    for g in grades:
        verdicts[g.verdict or "no code"] = verdicts.get(g.verdict or "no code", 0) + 1
    res = {
        "completions": len(items),
        "problems": len(probs),
        "seconds": secs,
        "per_second": len(items) / secs,
        "workers": sb.n_workers,
        "verdicts": verdicts,
        "load": os.getloadavg()[0],
    }
    print(
        f"  throughput: {len(items)} completions in {secs:.1f} s = {res['per_second']:.1f}/s "
        f"({sb.n_workers} workers) verdicts {verdicts}",
        flush=True,
    )
    return res


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--trials", type=int, default=15, help="trials per direction for 1.1x, 2x, 10x")
    ap.add_argument("--trials-13", type=int, default=50, help="trials per direction for 1.3x")
    ap.add_argument("--identical", type=int, default=30)
    ap.add_argument("--n", type=int, default=400_000, help="loop length of the 1x program")
    ap.add_argument("--factors", default="1.1,1.3,2,10")
    ap.add_argument(
        "--loads",
        default="idle,burn",
        help="'idle' = the machine as it is; 'burn' = + a burner per core",
    )
    ap.add_argument("--throughput", type=int, default=1024)
    ap.add_argument(
        "--instr", type=int, default=2, help="pairs judged by instruction counts (valgrind)"
    )
    ap.add_argument("--workers", type=int, default=default_workers())
    args = ap.parse_args()
    factors = [float(x) for x in args.factors.split(",")]
    report: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "n": args.n,
        "conditions": {},
    }
    with Sandbox(workers=args.workers) as sb:
        for load in args.loads.split(","):
            print(f"[{load}] load average {os.getloadavg()[0]:.2f}", flush=True)
            procs = burners(1200) if load == "burn" else []  # bounded even if we die
            try:
                report["conditions"][load] = decisions(
                    sb, args.n, factors, args.trials, args.trials_13, args.identical
                )
            finally:
                for p in procs:
                    p.kill()
                    p.wait()
        if args.instr:
            report["instructions"] = instructions(sb, args.n // 5, args.instr)
        if args.throughput:
            report["throughput"] = throughput(sb, args.throughput)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=1))
    print("\nshare of correct decisions (ours: ties count as not correct)")
    print(f"{'load':6} {'factor':>6} {'ours':>8} {'ours tie':>9} {'ours wrong':>10} {'naive':>8}")
    for load, c in report["conditions"].items():
        for f, r in c["factors"].items():
            t = r["trials"]
            print(
                f"{load:6} {f:>6} {r['ours']['correct'] / t:8.1%} {r['ours']['tie'] / t:9.1%} "
                f"{r['ours']['wrong'] / t:10.1%} {r['naive']['correct'] / t:8.1%}"
            )
        i = c["identical"]
        print(
            f"{load:6} identical: reward variance ours {i['ours_variance']:.4f}, naive {i['naive_variance']:.4f}"
        )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
