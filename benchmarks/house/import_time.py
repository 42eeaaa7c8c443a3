"""What `import mixer` (and `import filters`) costs a process, before and after the lazy imports.

Every measurement is a fresh interpreter that times the import statement alone (perf_counter
around it, so the interpreter's own start is not counted) and lists the modules it loaded. The
baseline is another checkout (`--before PATH`, e.g. `git archive <commit> | tar -x -C PATH`), put
first on `PYTHONPATH`; runs alternate (before, ours, ours, before, ...) so load drift hits both
alike, and the load average is recorded. Writes benchmarks/results/import_time.json.

    nice .venv/bin/python benchmarks/house/import_time.py --before /tmp/old-checkout [--before-name COMMIT] [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benchmarks" / "results" / "import_time.json"
PROBE = """
import sys, time, json
t = time.perf_counter()
import {module}
dt = time.perf_counter() - t
print(json.dumps({{"ms": dt * 1000, "modules": sorted(sys.modules)}}))
"""
WATCHED = (
    "filters.sandbox",
    "filters.stages.verify.stage",
    "filters.stages.dedup.stage",
    "filters.stages.difficulty",
    "pyarrow",
    "torch",
)


def probe(checkout: Path, module: str, cwd: str) -> dict[str, Any]:
    """Import `module` from `checkout` in a fresh interpreter: milliseconds and modules loaded."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def measure(before: Path, module: str, rounds: int) -> dict[str, Any]:
    """Alternate before and ours `rounds` times each; medians, ratio, what each loads."""
    times: dict[str, list[float]] = {"before": [], "ours": []}
    loads: list[float] = []
    last: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as cwd:
        for i in range(rounds):
            order = ("before", "ours") if i % 2 == 0 else ("ours", "before")
            loads.append(os.getloadavg()[0])
            for side in order:
                r = probe(before if side == "before" else REPO, module, cwd)
                times[side].append(r["ms"])
                last[side] = r
    med = {k: statistics.median(v) for k, v in times.items()}
    return {
        "module": module,
        "rounds": rounds,
        "median_ms": {k: round(v, 1) for k, v in med.items()},
        "ratio_before_over_ours": round(med["before"] / med["ours"], 2),
        "modules_loaded": {k: len(v["modules"]) for k, v in last.items()},
        "loads_watched": {k: [m for m in WATCHED if m in v["modules"]] for k, v in last.items()},
        "load_avg": {"min": round(min(loads), 2), "max": round(max(loads), 2)},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="a checkout of the baseline commit")
    ap.add_argument("--before-name", default=None, help="what --before holds, e.g. its commit")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--modules", nargs="+", default=["mixer", "filters"])
    args = ap.parse_args()
    if not (args.before / "mixer" / "__init__.py").is_file():
        sys.exit(f"error: {args.before} is not a codemix checkout (no mixer/__init__.py)")
    results = [measure(args.before.resolve(), m, args.rounds) for m in args.modules]
    print(
        f"{'import':<20} {'before ms':>10} {'ours ms':>8} {'ratio':>6}  modules before/ours  load"
    )
    for r in results:
        med, n = r["median_ms"], r["modules_loaded"]
        print(f"{r['module']:<20} {med['before']:>10} {med['ours']:>8} {r['ratio_before_over_ours']:>5}x"
              f"  {n['before']:>4} / {n['ours']:<4}  {r['load_avg']['min']}-{r['load_avg']['max']}")  # fmt: skip
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "command": "nice .venv/bin/python benchmarks/house/import_time.py " + " ".join(sys.argv[1:]),
        "before": args.before_name or str(args.before),
        "cpus": os.cpu_count(),
        "results": results,
    }
    RESULTS.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {RESULTS.relative_to(REPO)}")


if __name__ == "__main__":
    main()
