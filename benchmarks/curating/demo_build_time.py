"""How long the README's demo build takes: `codemix build --out DIR` of the embedded demo, run as
the tour runs it (the console script, all cores), from scratch each time.

    python benchmarks/curating/demo_build_time.py              # 3 builds
    python benchmarks/curating/demo_build_time.py --runs 1 \
        --out benchmarks/results/quick/demo_build_time.json      # a smoke run

Reports per build the wall time, the CPU time of the build and its sandbox processes (user + sys
of the child and its children: what the machine's load does not stretch much), and the load
average before and after, so a time quoted in the README says on what machine state it was taken.
Writes benchmarks/results/demo_build_time.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benchmarks" / "results" / "demo_build_time.json"


def one_build(out: Path) -> dict[str, float]:
    codemix = Path(sys.executable).with_name("codemix")
    load_before = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([str(codemix), "build", "--out", str(out)], check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "load_before": load_before,
            "load_after": os.getloadavg()[0]}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            runs.append(one_build(Path(tmp) / f"demo-{i}"))
            print(f"build {i + 1}: {runs[-1]}", flush=True)
    summary = {
        "cores": os.cpu_count(),
        "runs": runs,
        "wall_s_median": statistics.median(r["wall_s"] for r in runs),
        "cpu_s_median": statistics.median(r["cpu_s"] for r in runs),
        "load_range": [min(r["load_before"] for r in runs), max(r["load_after"] for r in runs)],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"demo build on {summary['cores']} cores: {summary['wall_s_median']} s wall (median), "
          f"{summary['cpu_s_median']} CPU-s, load {summary['load_range'][0]:.1f}-{summary['load_range'][1]:.1f}")


if __name__ == "__main__":
    main()
