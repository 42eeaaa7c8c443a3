"""The slow tail of a build (issue 58): how long amplify and verify take from 90% of their problems
to done, and the longest stretch in which no problem finished, before and after.

Runs `codemix build --source codecontests-subset:<slice> --out ...` from two checkouts at once
(the baseline's and this one's, each with its own `python -m curation.cli` and `--log-json`),
timestamps every progress event as it arrives, and writes per stage: wall, wall from the first
event at or past 90% to the stage's end, the longest gap between two events whose count moved,
and the rejections (`too_slow` among them). The slice is rows [start, end) of
`../shared/data/codecontests-subset300.jsonl.gz` (row 271 is 1238_e_keyboard_purchase_2831, which
held the shared big build's amplify at 92% for 25 minutes).

    # BASE: a checkout of the commit before (`git worktree add BASE <commit>`)
    python benchmarks/curating/slow_tail.py --before BASE --start 266 --end 276 --timeout-s 2400 \\
        --out benchmarks/results/slow_tail.json

An arm still running at `--timeout-s` is stopped with Ctrl-C and reported as it stood.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[2]
DATA = HERE.parent / "shared" / "data" / "codecontests-subset300.jsonl.gz"


def _slice(start: int, end: int, path: Path) -> list[str]:
    with gzip.open(DATA, "rt") as f:
        rows = [json.loads(line) for line in f][start:end]
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    return [r["id"] for r in rows]


def _run(checkout: Path, src: Path, out: Path, workers: int, events: list[dict[str, Any]],
         timeout_s: float) -> tuple[float, bool]:
    """The build's wall time, and whether it was stopped (Ctrl-C) at `timeout_s` unfinished."""
    cmd = [sys.executable, "-m", "curation.cli", "build", "--source", f"codecontests-subset:{src}",
           "--out", str(out), "--log-json", "--workers", str(workers)]  # fmt: skip
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    t0 = time.monotonic()
    # started in the background, a process inherits SIGINT ignored: restore it, so the stop works
    proc = subprocess.Popen(cmd, cwd=checkout, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    assert proc.stderr is not None
    stopped = threading.Timer(timeout_s, proc.send_signal, (signal.SIGINT,))
    stopped.start()
    for line in proc.stderr:
        if line.startswith("{"):
            e = json.loads(line)
            e["t"] = time.monotonic() - t0
            events.append(e)
    proc.wait()
    stopped.cancel()
    wall = time.monotonic() - t0
    if proc.returncode == 130:
        return wall, True
    if proc.returncode:
        raise SystemExit(f"the build in {checkout} failed ({proc.returncode})")
    return wall, False


def _tail(events: list[dict[str, Any]], stage: str, wall: float, stopped: bool) -> dict[str, Any]:
    """A stage's wall, from 90% to done, and the longest stretch without a finished problem (an
    unfinished stage, stopped at the timeout, ends at the stop)."""
    mine = [e for e in events if e.get("event") == "progress" and e.get("stage") == stage]
    if not mine:
        return {}
    total = mine[-1]["total"] or 0
    start = mine[0]["t"]
    done = mine[-1]["done"] >= total and "kept" in mine[-1]
    end = mine[-1]["t"] if done or not stopped else wall
    at90 = next((e["t"] for e in mine if total and e["done"] >= 0.9 * total), end)
    gap, last_t, last_done = 0.0, start, mine[0]["done"]
    for e in mine:
        if e["done"] != last_done:
            gap = max(gap, e["t"] - last_t)
            last_t, last_done = e["t"], e["done"]
    gap = max(gap, end - last_t)
    return {"problems": total, "finished": done, "last_count": mine[-1]["done"],
            "wall_s": round(end - start, 1), "wall_90_to_done_s": round(end - at90, 1) if done else None,
            "longest_none_finished_s": round(gap, 1), "updates": len(mine)}  # fmt: skip


def _rejected(out: Path) -> dict[str, Any]:
    import pyarrow.parquet as pq

    reasons: dict[str, int] = {}
    slow = []
    if not (out / "manifest.json").exists():
        return {}
    for f in sorted((out / "rejected").glob("*.parquet")):
        for r in pq.read_table(f).to_pylist():
            kind = r["reject_reason"].split(":")[0]
            reasons[kind] = reasons.get(kind, 0) + 1
            if kind == "too_slow":
                slow.append({"problem_id": r["problem_id"], "stage": r["reject_stage"],
                             **{k: v for k, v in json.loads(r["reject_detail"]).items() if k != "note"}})  # fmt: skip
    # the measured cost (cpu_s) is in the manifest since the rejected shards hold no measured value
    costs = {(c["problem_id"], c["stage"]): c for c in json.loads((out / "manifest.json").read_text()).get("measured_rejections", [])}
    for s in slow:
        s.update({k: v for k, v in costs.get((s["problem_id"], s["stage"]), {}).items() if k not in s})
    return {"reasons": dict(sorted(reasons.items())), "too_slow": slow}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="checkout of the baseline")
    ap.add_argument("--start", type=int, default=240)
    ap.add_argument("--end", type=int, default=280)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout-s", type=float, default=1800.0, help="stop an arm (Ctrl-C) after this")
    ap.add_argument("--out", type=Path, default=HERE / "benchmarks" / "results" / "slow_tail.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        ids = _slice(args.start, args.end, d / "slice.jsonl.gz")
        arms = {"baseline": args.before.resolve(), "ours": HERE}
        events: dict[str, list[dict[str, Any]]] = {k: [] for k in arms}
        walls: dict[str, tuple[float, bool]] = {}
        load_start = os.getloadavg()

        def go(name: str) -> None:
            walls[name] = _run(arms[name], d / "slice.jsonl.gz", d / name, args.workers, events[name],
                               args.timeout_s)

        threads = [threading.Thread(target=go, args=(n,)) for n in arms]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        result = {
            "command": " ".join(sys.argv),
            "slice": {"rows": [args.start, args.end], "ids": ids},
            "machine": f"{os.cpu_count()} CPUs, shared; both arms at once, {args.workers} workers each",
            "load_start": [round(x, 2) for x in load_start],
            "load_end": [round(x, 2) for x in os.getloadavg()],
            "arms": {
                name: {"checkout": str(arms[name]), "wall_s": round(walls[name][0], 1),
                       "stopped_at_timeout": walls[name][1],
                       **{st: _tail(events[name], st, *walls[name]) for st in ("amplify", "verify")},
                       **_rejected(d / name)}  # fmt: skip
                for name in arms
            },
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result["arms"], indent=1))


if __name__ == "__main__":
    main()
