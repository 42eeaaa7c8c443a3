"""Reading a TACO-verified-style JSON array file: streamed by `iter_source` against `json.load`.

TACO-verified's hub copy is one JSON array (`taco_verified.json`, about 2 GB). This writes such a
file of N synthetic rows (original toy content: TACO's columns, `solutions` a list, 20 stdio tests
of about 2 KB), then, each in a fresh subprocess, converts every row (a) the naive way, `json.load`
of the whole file then `convert_taco` (the baseline), and (b) with `iter_source("taco-verified",
path)`, which decodes one element at a time. Reports rows/s and peak RSS for each size, with the
machine's load; writes benchmarks/results/json_array_stream.json.

    .venv/bin/python benchmarks/curating/json_array_stream.py [--rows 5000 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results" / "json_array_stream.json"

CHILD = r"""
import json, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
n = 0
if kind == "stream":
    from curation.sources import iter_source
    for r in iter_source("taco-verified", path):
        n += isinstance(r, dict)
else:
    from curation.sources.taco import convert_taco
    with open(path) as f:
        rows = json.load(f)
    for i, row in enumerate(rows):
        convert_taco(row, i)
        n += 1
dt = time.perf_counter() - t0
print(json.dumps({"rows": n, "seconds": dt, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def make_file(path: Path, rows: int) -> None:
    """A JSON array of TACO-verified rows, written row by row (the writer never holds them all)."""
    with open(path, "w") as f:
        f.write("[\n")
        for i in range(rows):
            ins = [
                " ".join(str((i * 7 + j * 13 + k) % 1000) for k in range(400)) + "\n"
                for j in range(20)
            ]
            io = {"inputs": ins, "outputs": [f"{i + j}\n" for j in range(20)]}
            sol = f"print(sum(map(int, input().split())) + {i})\n"
            row = {"question": f"Toy problem {i}: add the numbers. " * 20, "solutions": [sol, sol],
                   "starter_code": "", "input_output": json.dumps(io), "difficulty": "EASY",
                   "source": "codeforces", "url": "", "tags": "['Math']", "raw_tags": "['math']",
                   "time_limit": "1 second", "memory_limit": "256 megabytes"}  # fmt: skip
            f.write(("," if i else "") + json.dumps(row) + "\n")
        f.write("]\n")


def run(kind: str, path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[5000, 20000])
    args = ap.parse_args()
    sizes = []
    for rows in args.rows:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "taco_verified.json"
            make_file(path, rows)
            size_mb = path.stat().st_size / 2**20
            load = os.getloadavg()[0]
            base, ours = run("whole", path), run("stream", path)
            load = round((load + os.getloadavg()[0]) / 2, 2)
        assert base["rows"] == ours["rows"] == rows
        sizes.append({
            "rows": rows, "file_mib": round(size_mb, 1), "load_avg_1min": load,
            "baseline_json_load": base, "ours_iter_source": ours,
            "rss_ratio_baseline_over_ours": round(base["peak_rss_mb"] / ours["peak_rss_mb"], 2),
            "speed_ratio_ours_over_baseline": round(base["seconds"] / ours["seconds"], 2),
        })  # fmt: skip
    res = {
        "command": "benchmarks/curating/json_array_stream.py --rows " + " ".join(map(str, args.rows)),
        "when": time.strftime("%Y-%m-%d"),
        "sizes": sizes,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(res, indent=2) + "\n")
    print(
        f"{'rows':>7}{'MiB':>7}{'load':>6}  {'json.load rows/s':>17}{'MiB':>7}  {'ours rows/s':>12}{'MiB':>7}"
    )
    for s in sizes:
        b, o = s["baseline_json_load"], s["ours_iter_source"]
        print(
            f"{s['rows']:>7}{s['file_mib']:>7.0f}{s['load_avg_1min']:>6.1f}  {b['rows'] / b['seconds']:>17.0f}"
            f"{b['peak_rss_mb']:>7.0f}  {o['rows'] / o['seconds']:>12.0f}{o['peak_rss_mb']:>7.0f}"
        )


if __name__ == "__main__":
    main()
