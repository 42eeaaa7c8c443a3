"""Amplify's and verify's cost per row, a baseline checkout against this one, alternating.

`amplify_cost.py` runs the two sides at the same time; their stages then overlap differently (one
side's verify runs beside the other's amplify), which moved a ratio by 30% between two runs on a
shared machine. Here each stage runs alone, in a fresh process per side, in turns (baseline,
ours, baseline, ours, ...), on the same rows: amplify on the loaded rows, then verify (the yield
part's settings: --min-tests 5, 8 mutants) on the rows ours amplified (the generated tests are
the same on both sides when batching changes no verdict; checked and written). Each run counts
the sandbox children it started (`WorkerProcess.call(Op.RUN)`), a count the load does not move.

    nice .venv/bin/python benchmarks/judging/stage_cost.py --baseline /path/to/baseline/checkout
        [--ours /path/to/snapshot] [--set leetcodedataset] [--offset 400] [--limit 100] [--turns 2]

Writes benchmarks/results/stage_cost.json (or --out) and prints per side the seconds per row of
each turn, the best, the children per row and the load before and after each run.
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
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def child(stage: str, rows_in: Path, out: Path) -> None:
    """In a side's process: run one stage on the rows, write its seconds, children, decisions."""
    from filters.sandbox import Sandbox
    from filters.sandbox.process import WorkerProcess
    from filters.sandbox.worker.wire import Op

    count = [0]
    real = WorkerProcess.call

    def call(self: Any, op: str, body: Any, timeout: float) -> Any:
        if op == Op.RUN:
            count[0] += 1
        return real(self, op, body, timeout)

    WorkerProcess.call = call  # type: ignore[method-assign]
    rows = json.loads(rows_in.read_text())
    with Sandbox(1) as sb:
        if stage == "amplify":
            from filters.stages.amplify.stage import AmplifyStage

            st: Any = AmplifyStage(sandbox=sb)
        else:
            from filters.settings import VerifyConfig
            from filters.stages.verify.stage import VerifyStage

            st = VerifyStage(VerifyConfig(min_tests=5, mutants=8, min_mutation_score=0.0), sandbox=sb)
        if hasattr(type(st), "rerun_sandbox"):  # (an older checkout's amplify has none)
            _ = st.rerun_sandbox  # started before the clock, as on the other side
        t = time.perf_counter()
        decisions = []
        for i in range(0, len(rows), 64):
            decisions.extend(st.judge_rows(rows[i : i + 64]))
        seconds = time.perf_counter() - t
        st.close()
    out.write_text(json.dumps({
        "seconds": seconds, "children": count[0],
        "rows": [dict(r, **d.columns) if stage == "amplify" else
                 {"keep": d.keep, "reason": d.reason, "strength": d.columns.get("test_strength"),
                  "time_limit_s": d.columns.get("time_limit_s")}
                 for r, d in zip(rows, decisions)],
    }, default=str))  # fmt: skip


def _run(root: Path, stage: str, rows: Path, out: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1")
    load0 = os.getloadavg()[0]
    subprocess.run([sys.executable, __file__, "--child", stage, "--rows", str(rows), "--out", str(out)],
                   env=env, cwd=root, check=True)  # fmt: skip
    res = json.loads(out.read_text())
    res["load"] = [round(load0, 2), round(os.getloadavg()[0], 2)]
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--child", choices=["amplify", "verify"])
    ap.add_argument("--rows", type=Path)
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--ours", type=Path, default=REPO)
    ap.add_argument("--set", default="leetcodedataset")
    ap.add_argument("--offset", type=int, default=400)
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "stage_cost.json")
    args = ap.parse_args()
    if args.child:
        child(args.child, args.rows, args.out)
        return
    if args.baseline is None:
        ap.error("--baseline is required")
    sys.path.insert(0, str(REPO / "benchmarks" / "judging"))
    from amplify import load  # benchmarks/judging/amplify.py

    tmp = Path(tempfile.mkdtemp(prefix="stage_cost_"))
    rows = load(args.set, args.limit, args.offset)
    (tmp / "rows.json").write_text(json.dumps(rows, default=str))
    n = len(rows)
    sides = {"baseline": args.baseline.resolve(), "ours": args.ours.resolve()}
    report: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": f"{os.cpu_count()} cpus", "rows": n, "set": args.set, "offset": args.offset,
        "sides": {k: str(v) for k, v in sides.items()}, "stages": {},
    }  # fmt: skip
    amplified: dict[str, list[dict[str, Any]]] = {}
    for stage in ("amplify", "verify"):
        runs: dict[str, list[dict[str, Any]]] = {"baseline": [], "ours": []}
        rows_in = tmp / "rows.json"
        if stage == "verify":
            rows_in = tmp / "amplified.json"
            rows_in.write_text(json.dumps(amplified["ours"], default=str))
        for turn in range(args.turns):
            for side, root in sides.items():
                res = _run(root, stage, rows_in, tmp / f"{stage}_{side}_{turn}.json")
                runs[side].append(res)
                if stage == "amplify":
                    amplified[side] = res["rows"]
                print(f"{stage} {side} turn {turn}: {res['seconds'] / n:.3f} s/row, "
                      f"{res['children'] / n:.1f} children/row, load {res['load']}", flush=True)  # fmt: skip
        entry: dict[str, Any] = {}
        for side, rs in runs.items():
            entry[side] = {
                "s_per_row": [round(r["seconds"] / n, 3) for r in rs],
                "best_s_per_row": round(min(r["seconds"] for r in rs) / n, 3),
                "children_per_row": [round(r["children"] / n, 1) for r in rs],
                "load": [r["load"] for r in rs],
            }
        b, o = entry["baseline"]["best_s_per_row"], entry["ours"]["best_s_per_row"]
        entry["ratio_best"] = round(b / o, 2) if o else None
        if stage == "amplify":
            gen = {s: [r.get("generated_tests") for r in rs[-1]["rows"]] for s, rs in runs.items()}
            entry["same_generated_tests"] = gen["baseline"] == gen["ours"]
        else:
            dec = {s: [(r["keep"], r["reason"]) for r in rs[-1]["rows"]] for s, rs in runs.items()}
            entry["kept"] = {s: sum(k for k, _ in d) for s, d in dec.items()}
            entry["same_decisions"] = dec["baseline"] == dec["ours"]
            entry["strength_mean"] = {
                s: round(sum(r["strength"] or 0 for r in rs[-1]["rows"] if r["keep"])
                         / max(1, sum(r["keep"] for r in rs[-1]["rows"])), 4)
                for s, rs in runs.items()
            }  # fmt: skip
            pairs = list(zip(*(rs[-1]["rows"] for rs in runs.values())))
            # rows whose strength differs, and by how much ours is above the baseline's
            entry["strength_changed"] = [
                {"row": i, "baseline": a["strength"], "ours": b["strength"]}
                for i, (a, b) in enumerate(pairs) if a["strength"] != b["strength"]
            ]  # fmt: skip
        report["stages"][stage] = entry
        print(stage, json.dumps({k: v for k, v in entry.items()}), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
