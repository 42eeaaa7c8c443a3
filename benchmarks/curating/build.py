"""Build throughput and memory: the shared data with 1 and 2 workers, local and Ray; memory growth on
a synthetic corpus.

    python benchmarks/curating/build.py            # full: all of ../shared/data, plus 10k/30k/100k synthetic
    python benchmarks/curating/build.py --quick    # a small slice, for a smoke run
    python benchmarks/curating/build.py --amplify --limit 150 --no-synthetic --out benchmarks/results/build_amplify.json
                                          # the build's defaults (amplify on, --min-tests 5), a slice

Without `--amplify` the shared builds leave amplify out and keep problems with one test or more
(the verify stage's throughput); with it they run the default stages and `--min-tests`.

Each build runs in its own process, which reports its peak RSS (the driver; sandbox workers are
separate small processes). Writes benchmarks/results/build.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results" / "build.json"
QUICK = REPO / "benchmarks" / "results" / "quick" / "build.json"  # --quick: ignored by git

SHARED_SOURCES = [
    f"leetcodedataset:{SHARED / 'LeetCodeDataset-v0.2.0-train.jsonl.gz'}",
    f"mbpp:{SHARED / 'mbpp.jsonl.gz'}",
    f"humaneval:{SHARED / 'HumanEval.jsonl.gz'}",
    f"humaneval-x:{SHARED / 'humaneval-x-python.jsonl.gz'}",
    f"codecontests-subset:{SHARED / 'codecontests-subset300.jsonl.gz'}",
]

_CHILD = r"""
import json, resource, sys, time
from curation.build import BuildConfig, SourceSpec, build
from curation.commands.build import parse_source_specs
args = json.loads(sys.argv[1])
cfg = BuildConfig(sources=parse_source_specs(args["sources"], args["limit"]), stages=args["stages"],
                  batch_rows=args["batch_rows"]).updated(decontaminate_against=args["against"],
                                                         min_tests=args["min_tests"])
t0 = time.perf_counter()
res = build(cfg, args["out"], workers=args["workers"], executor=args["executor"], force=True, write_report=False)
wall = time.perf_counter() - t0
m = res.manifest
tests = 0
import pyarrow.parquet as pq, pathlib
for f in sorted(pathlib.Path(args["out"], "problems").glob("*.parquet")):
    t = pq.read_table(f)
    if "tests_total" in t.column_names and "solution_verdicts" in t.column_names:
        for n, v in zip(t.column("tests_total").to_pylist(), t.column("solution_verdicts").to_pylist()):
            tests += (n or 0) * len(v or [])
print(json.dumps({"wall_s": wall, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "problems_in": sum(m["counts"]["input"].values()), "problems_out": sum(m["counts"]["output"].values()),
                  "reference_tests_run": tests}))
"""


def run_build(
    sources: list[str],
    out: Path,
    *,
    workers: int,
    executor: str,
    limit: int | None = None,
    stages: list[str] | None = None,
    against: list[str] | None = None,
    batch_rows: int = 256,
    min_tests: int = 1,
    amplify: bool = False,
) -> dict:
    args = {
        "sources": sources,
        "out": str(out),
        "workers": workers,
        "executor": executor,
        "limit": limit,
        "stages": stages or ["exact_id", "decontam", *(["amplify"] if amplify else []), "verify",
                             "dedup", "difficulty"],
        "against": against if against is not None else ["humaneval"],
        "batch_rows": batch_rows,
        "min_tests": min_tests,
    }
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(args)], capture_output=True, text=True, cwd=REPO
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    r["problems_per_s"] = r["problems_in"] / r["wall_s"]
    r["tests_per_s"] = r["reference_tests_run"] / r["wall_s"]
    return r


def synthetic(path: Path, n: int) -> Path:
    """n cheap stdio problems with distinct statements (seeded random words), as canonical JSONL."""
    import random

    rng = random.Random(0)
    vocab = [f"{a}{b}" for a in ("ar", "be", "co", "di", "el", "fu", "ga", "hi", "io", "ju", "ka", "lo")
             for b in ("ray", "ing", "ph", "ee", "um", "ct", "nt", "ry", "ix", "ap", "ode", "set")]
    with open(path, "w") as f:
        for i in range(n):
            words = " ".join(rng.choice(vocab) for _ in range(40))
            f.write(json.dumps({
                "id": f"s{i}", "source": "synthetic",
                "statement": f"Given {words}, print the input number plus {i % 97}.",
                "test_type": "stdio",  # distinct tests too: equal test sets mean duplicates
                "tests": [{"input": f"{i} {j}\n", "output": f"{i + j + i % 97}\n"} for j in range(5)],
                "solutions": [f"a, b = map(int, input().split())\nprint(a + b + {i % 97})"],
            }) + "\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--limit", type=int, default=None, help="rows per shared source (default: all)")
    ap.add_argument("--runs", default="local1,local2,ray1,ray2", help="which shared-data builds, e.g. local1,local2,ray2")
    ap.add_argument("--keep-shared", action="store_true", help="reuse the shared-data runs already in the results file")
    ap.add_argument("--amplify", action="store_true", help="the default stages, amplify among them, and --min-tests 5")
    ap.add_argument("--no-synthetic", action="store_true", help="only the shared-data builds")
    ap.add_argument("--batch-rows", type=int, default=256,
                    help="rows per unit of work: Ray runs a unit per CPU, so a slice needs small units")
    ap.add_argument("--out", type=Path, default=None, help="--quick: results/quick/build.json")
    a = ap.parse_args()
    results = a.out or (QUICK if a.quick else RESULTS)
    if not SHARED.is_dir():
        sys.exit(f"{SHARED} is absent: this benchmark builds the shared data")
    limit = 40 if a.quick else a.limit
    wanted = set(a.runs.split(","))
    rows = []
    if a.keep_shared and results.exists():
        rows = [r for r in json.loads(results.read_text())["runs"] if r["kind"] == "shared"]
        wanted = set()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for executor in ("local", "ray"):
            for workers in (1, 2):
                if f"{executor}{workers}" not in wanted:
                    continue
                load0 = round(os.getloadavg()[0], 2)
                r = run_build(
                    SHARED_SOURCES,
                    tmp / f"{executor}{workers}",
                    workers=workers,
                    executor=executor,
                    limit=limit,
                    min_tests=5 if a.amplify else 1,
                    amplify=a.amplify,
                    batch_rows=a.batch_rows,
                )
                r.update(kind="shared", executor=executor, workers=workers, amplify=a.amplify,
                         batch_rows=a.batch_rows,
                         load=[load0, round(os.getloadavg()[0], 2)])
                rows.append(r)
                print(json.dumps(r), flush=True)
        sizes = [] if a.no_synthetic else [2_000, 5_000] if a.quick else [10_000, 30_000, 100_000]
        for n in sizes:
            src = synthetic(tmp / f"syn{n}.jsonl", n)
            # Verification of 100k problems would take about an hour on 2 cores; memory growth is about the
            # driver's state (units, dedup signatures, difficulty features), which these stages hold.
            r = run_build(
                [str(src)],
                tmp / f"syn{n}",
                workers=2,
                executor="local",
                stages=["exact_id", "dedup", "difficulty"],
                against=[],
                batch_rows=2000,
            )
            r.update(kind="synthetic", executor="local", workers=2, n=n)
            rows.append(r)
            print(json.dumps(r), flush=True)
    local = {r["workers"]: r for r in rows if r["kind"] == "shared" and r["executor"] == "local"}
    ray = {r["workers"]: r for r in rows if r["kind"] == "shared" and r["executor"] == "ray"}
    summary = {
        "speedup_local_2_vs_1": local[1]["wall_s"] / local[2]["wall_s"] if {1, 2} <= set(local) else None,
        "ray_overhead_2_workers": ray[2]["wall_s"] / local[2]["wall_s"] - 1 if 2 in ray and 2 in local else None,
        "limit_per_source": limit,
        "machine": f"{os.cpu_count()} cores",
        "quick": a.quick,
    }
    summary["command"] = " ".join([Path(sys.executable).name, *sys.argv])
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps({"runs": rows, "summary": summary}, indent=2) + "\n")
    print("\n(tests/s: reference runs of kept problems, tests x solutions; repeats and mutants not counted)")
    print(
        f"{'kind':<10}{'executor':<9}{'workers':>8}{'problems':>10}{'wall s':>9}{'probs/s':>9}{'tests/s':>9}{'peak MB':>9}"
    )
    for r in rows:
        print(
            f"{r['kind']:<10}{r['executor']:<9}{r['workers']:>8}{r['problems_in']:>10}{r['wall_s']:>9.1f}"
            f"{r['problems_per_s']:>9.1f}{r['tests_per_s']:>9.0f}{r['peak_rss_mb']:>9.0f}"
        )
    print(f"\nspeed-up 2 vs 1 worker (local): {summary['speedup_local_2_vs_1']}; "
          f"Ray overhead at 2 workers (fraction): {summary['ray_overhead_2_workers']}")


if __name__ == "__main__":
    main()
