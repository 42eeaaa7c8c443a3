"""What per-problem progress costs: the verify stage over one unit of real problems, judged whole
(the baseline: one progress report per unit) or in chunks of `--chunk` rows (ours: a report after
each chunk). Chunks add a barrier per chunk in each of verify's three phases (first pass, rerun,
mutants), where sandbox workers can idle.

    nice python benchmarks/curating/progress_chunks.py   # 64 CodeContests rows, chunk 32, 2 rounds
    nice python benchmarks/curating/progress_chunks.py --rows 32 --rounds 1 \
        --out benchmarks/results/quick/progress_chunks.json   # a smoke run

Runs alternate (whole, chunked, chunked, whole, ...) so load drift hits both alike; the load
average is recorded around each run. Checks that both give the same kept rows and reasons.
Writes benchmarks/results/progress_chunks.json (or `--out`) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benchmarks" / "results" / "progress_chunks.json"


def unit_file(rows: int, where: Path) -> Path:
    """The first `rows` CodeContests problems of ../shared/data, normalised, as one unit file."""
    from curation.ingest import ingest_batches
    from curation.sources import iter_source

    stream = (r for r in iter_source("codecontests-subset", limit=rows))
    (_, batch), *_ = list(ingest_batches(stream, rows))
    path = where / "unit.parquet"
    pq.write_table(batch.kept, path)
    return path


def judge(unit: Path, out: Path, chunk: int | None, workers: int) -> tuple[float, int, list, list]:
    from curation.pipeline import process_unit
    from filters.stages.verify.stage import VerifyStage

    stage = VerifyStage(workers=workers)
    reports = 0

    def count(_: int) -> None:
        nonlocal reports
        reports += 1

    try:
        stage.sandbox.run_many([])  # start the workers before the clock
        t0 = time.perf_counter()
        process_unit(stage, unit, out, 0, chunk_rows=chunk, on_rows=count)
        wall = time.perf_counter() - t0
    finally:
        stage.close()
    kept = (
        pq.read_table(out / "unit-00000.parquet", columns=["problem_id"])
        .column("problem_id")
        .to_pylist()
    )
    rej = pq.read_table(
        out / "unit-00000.rejected.parquet", columns=["problem_id", "reject_reason"]
    ).to_pylist()
    return wall, reports, kept, sorted((r["problem_id"], r["reject_reason"]) for r in rej)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=64)
    ap.add_argument("--chunk", type=int, default=32)
    ap.add_argument(
        "--rounds", type=int, default=2, help="pairs of runs (whole + chunked), alternating order"
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    runs: dict[str, list[dict]] = {"whole": [], "chunked": []}
    outcomes: dict[str, set] = {"whole": set(), "chunked": set()}
    with tempfile.TemporaryDirectory() as tmp:
        unit = unit_file(args.rows, Path(tmp))
        order = []
        for r in range(args.rounds):
            order += ["whole", "chunked"] if r % 2 == 0 else ["chunked", "whole"]
        for i, kind in enumerate(order):
            load0 = os.getloadavg()[0]
            wall, reports, kept, rej = judge(unit, Path(tmp) / f"run{i}", args.chunk if kind == "chunked" else None,
                                             args.workers)  # fmt: skip
            runs[kind].append({"wall_s": round(wall, 2), "progress_reports": reports, "load_before": round(load0, 2),
                               "load_after": round(os.getloadavg()[0], 2)})  # fmt: skip
            outcomes[kind].add(json.dumps([kept, rej]))
            print(f"{kind:8} {wall:7.1f} s  reports={reports}  load {load0:.1f} -> {os.getloadavg()[0]:.1f}",
                  file=sys.stderr)  # fmt: skip
    whole = statistics.median(r["wall_s"] for r in runs["whole"])
    chunked = statistics.median(r["wall_s"] for r in runs["chunked"])
    same = len(outcomes["whole"] | outcomes["chunked"]) == 1
    result = {
        "command": "python benchmarks/curating/progress_chunks.py " + " ".join(sys.argv[1:]),
        "rows": args.rows,
        "chunk": args.chunk,
        "workers": args.workers,
        "cpus": os.cpu_count(),
        "runs": runs,
        "median_wall_s": {"whole": whole, "chunked": chunked},
        "ratio_chunked_over_whole": round(chunked / whole, 3),
        "same_kept_and_reasons": same,
        "note": "verdicts of slow references can differ between any two runs under load (TLE near the limit)",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"| unit of {args.rows} | whole (1 report) | chunks of {args.chunk} | ratio | same result |"
    )
    print("|---|---|---|---|---|")
    print(f"| CodeContests, {args.workers} workers | {whole:.1f} s | {chunked:.1f} s | "
          f"{chunked / whole:.2f}x | {same} |")  # fmt: skip


if __name__ == "__main__":
    main()
