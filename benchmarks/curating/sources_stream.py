"""Source loading: streaming `iter_source` against reading the whole file first (the baseline).

Writes a TACO-schema Parquet file of N synthetic rows (original toy content), then, each in a
fresh subprocess, converts every row (a) with `iter_source` (record batches, constant memory)
and (b) the naive way: `pq.read_table(...).to_pylist()` then the same converter. Reports rows/s
and peak RSS; writes benchmarks/results/sources_stream.json.

    .venv/bin/python benchmarks/curating/sources_stream.py [--rows 20000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

RESULTS = Path(__file__).resolve().parents[1] / "results" / "sources_stream.json"

CHILD = r"""
import resource, sys, time, json
kind, path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
n = 0
if kind == "stream":
    from curation.sources import iter_source
    for r in iter_source("taco", path):
        n += 1
else:
    import pyarrow.parquet as pq
    from curation.sources.taco import convert_taco
    rows = pq.read_table(path).to_pylist()
    for i, row in enumerate(rows):
        convert_taco(row, i)
        n += 1
dt = time.perf_counter() - t0
print(json.dumps({"rows": n, "seconds": dt, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def make_file(path: Path, rows: int) -> None:
    """A TACO-schema file: every row has 20 stdio tests of about 2 KB and two solutions."""
    writer = None
    for start in range(0, rows, 1000):
        batch = []
        for i in range(start, min(rows, start + 1000)):
            ins = [
                " ".join(str((i * 7 + j * 13 + k) % 1000) for k in range(400)) + "\n"
                for j in range(20)
            ]
            io = {"inputs": ins, "outputs": [f"{i + j}\n" for j in range(20)]}
            sol = f"print(sum(map(int, input().split())) + {i})\n"
            batch.append({"question": f"Toy problem {i}: add the numbers. " * 20, "solutions": json.dumps([sol, sol]),
                          "starter_code": "", "input_output": json.dumps(io), "difficulty": "EASY",
                          "tags": "['Math']", "time_limit": "1 second", "memory_limit": "256 megabytes"})  # fmt: skip
        table = pa.Table.from_pylist(batch)
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema, compression="zstd")
        writer.write_table(table)
    assert writer is not None
    writer.close()


def run(kind: str, path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=20000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "taco.parquet"
        t0 = time.perf_counter()
        make_file(path, args.rows)
        size_mb = path.stat().st_size / 2**20
        print(
            f"wrote {args.rows} rows, {size_mb:.1f} MiB parquet in {time.perf_counter() - t0:.1f}s"
        )
        base, ours = run("whole", path), run("stream", path)
    res = {
        "rows": args.rows, "file_mib": round(size_mb, 1), "baseline_read_whole": base, "ours_iter_source": ours,
        "rss_ratio_baseline_over_ours": round(base["peak_rss_mb"] / ours["peak_rss_mb"], 2),
        "speed_ratio_ours_over_baseline": round(base["seconds"] / ours["seconds"], 2),
    }  # fmt: skip
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(res, indent=2) + "\n")
    print(f"{'':24}{'rows/s':>10}{'peak RSS MiB':>15}")
    for name, r in (("read whole (baseline)", base), ("iter_source (ours)", ours)):
        print(f"{name:24}{r['rows'] / r['seconds']:>10.0f}{r['peak_rss_mb']:>15.0f}")
    print(
        f"peak RSS baseline/ours: {res['rss_ratio_baseline_over_ours']}x; speed ours/baseline: {res['speed_ratio_ours_over_baseline']}x"
    )


if __name__ == "__main__":
    main()
