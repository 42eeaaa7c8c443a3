"""Peak memory of `codemix export`: the previous export (every row of an export in memory, taken
from git history) against the streaming one, in the same run, on a synthetic build of N rows made
by copying the demo build's problems under new ids.

    .venv/bin/python benchmarks/curating/export_memory.py --rows 100000
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "results" / "export_memory.json"
OLD_COMMIT = "ae7dbbc"  # the last commit with the in-memory export

CHILD = """
import importlib, importlib.util, resource, sys, time
sys.path.insert(0, {root!r})
if {old!r}:
    spec = importlib.util.spec_from_file_location("old_export", {old!r})
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
else:
    mod = importlib.import_module("curation.export")
t = time.perf_counter()
counts = mod.export({build!r}, {fmt!r}, {out!r}, split="test=0.05")
print(time.perf_counter() - t, sum(counts.values()), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def synthetic_build(rows: int, where: Path) -> Path:
    demo = where / "demo"
    subprocess.run(
        [sys.executable, "-m", "curation.cli", "build", "--out", str(demo)],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    base = pq.read_table(next((demo / "problems").glob("*.parquet")))
    big = where / "big"
    (big / "problems").mkdir(parents=True)
    shutil.copy(demo / "manifest.json", big / "manifest.json")
    n, shard = 0, 0
    while n < rows:
        take = min(rows - n, 5000)
        reps = [base] * (take // base.num_rows + 1)
        t = pa.concat_tables(reps).slice(0, take)
        ids = pa.array([f"synthetic/{n + i}" for i in range(take)])
        t = t.set_column(t.schema.get_field_index("problem_id"), "problem_id", ids)
        pq.write_table(t, big / "problems" / f"part-{shard:05d}.parquet")
        n, shard = n + take, shard + 1
    return big


def measure(build: Path, fmt: str, old: str, out: Path) -> dict:
    """Run one export in a fresh process; its own peak RSS (ru_maxrss of the child itself)."""
    code = CHILD.format(root=str(ROOT), old=old, build=str(build), fmt=fmt, out=str(out))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    secs, n, peak_kb = proc.stdout.split()[-3:]
    return {"peak_mb": int(peak_kb) / 1024, "seconds": float(secs), "rows": int(n)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--formats", nargs="+", default=["jsonl", "verl", "hf"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        old_src = d / "old_export.py"
        old_src.write_text(
            subprocess.run(
                ["git", "show", f"{OLD_COMMIT}:curation/export.py"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        build = synthetic_build(args.rows, d)
        rows = []
        for fmt in args.formats:
            ours = measure(build, fmt, "", d / f"new_{fmt}")
            base = measure(build, fmt, str(old_src), d / f"old_{fmt}")
            row = {
                "format": fmt,
                "rows": args.rows,
                "old_peak_mb": base["peak_mb"],
                "old_s": base["seconds"],
                "new_peak_mb": ours["peak_mb"],
                "new_s": ours["seconds"],
            }
            rows.append(row)
            print(
                f"{fmt:6s} rows {args.rows:,}: in-memory peak {base['peak_mb']:.0f} MB ({base['seconds']:.1f} s), "
                f"streaming {ours['peak_mb']:.0f} MB ({ours['seconds']:.1f} s)"
            )
            time.sleep(0.1)
    OUT.write_text(json.dumps({"benchmark": "export_memory", "rows": rows}, indent=1))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
