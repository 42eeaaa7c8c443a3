"""The same bytes from the shared big build, and its slow tail (issue 58, its Done-when).

Runs the shared big command (`codemix build --source mbpp:../shared/data/mbpp.jsonl.gz --source
codecontests-subset`) twice at once from this checkout, as the issue did:

- arm `straight`: `PYTHONHASHSEED=1`, never stopped; every progress event is timestamped as it
  arrives, so each stage's wall, its wall from 90% of its problems to done and the longest
  stretch in which no problem finished are measured (`slow_tail._tail`);
- arm `interrupted`: `PYTHONHASHSEED=2`, stopped with Ctrl-C (SIGINT) at each point of
  `--stops` (`stage:fraction`, e.g. `amplify:0.3`) and resumed each time with the next hash seed.

Then both outputs are compared shard by shard: the bytes of every table once the manifest's
`measured_columns` are taken out (and the same keys inside `reject_detail`), and the sha256 of
each rejected shard as a whole where no row's detail carries a measured key.

    python benchmarks/curating/same_bytes_big.py --out benchmarks/results/same_bytes_big.json

Each arm's output directory is kept under `--keep` (default: a temporary folder, removed).
"""

from __future__ import annotations

import argparse
import hashlib
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

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slow_tail import _rejected, _tail  # noqa: E402

HERE = Path(__file__).resolve().parents[2]
MBPP = HERE.parent / "shared" / "data" / "mbpp.jsonl.gz"
STAGES = ("exact_id", "decontam", "amplify", "verify", "dedup", "difficulty")


def _command(out: Path, workers: int | None) -> list[str]:
    cmd = [sys.executable, "-m", "curation.cli", "build", "--source", f"mbpp:{MBPP}",
           "--source", "codecontests-subset", "--out", str(out), "--log-json"]  # fmt: skip
    return cmd + (["--workers", str(workers)] if workers else [])


def _run(cmd: list[str], seed: int, events: list[dict[str, Any]], t0: float,
         stop: tuple[str, float] | None) -> int:
    """Run one build process; SIGINT it once `stop`'s stage reaches its fraction. Its return code."""
    env = dict(os.environ, PYTHONHASHSEED=str(seed), OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    # a process started in the background (`nohup ... &`) inherits SIGINT ignored, and Python then
    # never turns it into KeyboardInterrupt: the build must hear Ctrl-C as a terminal would send it
    proc = subprocess.Popen(cmd, cwd=HERE, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    assert proc.stderr is not None
    sent = False
    for line in proc.stderr:
        if not line.startswith("{"):
            continue
        e = json.loads(line)
        e["t"], e["seed"] = time.monotonic() - t0, seed
        events.append(e)
        if (stop and not sent and e.get("event") == "progress" and e.get("stage") == stop[0]
                and e.get("total") and e["done"] >= stop[1] * e["total"]):  # fmt: skip
            proc.send_signal(signal.SIGINT)
            sent = True
    return proc.wait()


def _table_bytes(table: pa.Table, measured: set[str]) -> bytes:
    t = table.drop_columns([c for c in table.column_names if c in measured])
    if "reject_detail" in t.column_names:
        details = [d if d is None else json.dumps({k: v for k, v in json.loads(d).items() if k not in measured})
                   for d in t.column("reject_detail").to_pylist()]  # fmt: skip
        t = t.set_column(t.column_names.index("reject_detail"), "reject_detail", pa.array(details, pa.string()))
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, t.schema) as w:
        w.write_table(t)
    return sink.getvalue().to_pybytes()


def _compare(a: Path, b: Path) -> dict[str, Any]:
    ma, mb = (json.loads((d / "manifest.json").read_text()) for d in (a, b))
    measured = set(ma["measured_columns"])
    out: dict[str, Any] = {"measured_columns": sorted(measured),
                           "measured_equal": measured == set(mb["measured_columns"]), "files": {}}  # fmt: skip
    for kind in ("problems", "rejected"):
        names = sorted(p.name for p in (a / kind).glob("*.parquet"))
        out[f"{kind}_files_equal"] = names == sorted(p.name for p in (b / kind).glob("*.parquet"))
        for name in names:
            pa_, pb_ = a / kind / name, b / kind / name
            if not pb_.exists():
                out["files"][f"{kind}/{name}"] = {"missing_in_interrupted": True}
                continue
            ta, tb = pq.read_table(pa_), pq.read_table(pb_)
            row: dict[str, Any] = {"rows": ta.num_rows,
                                   "equal_outside_measured": _table_bytes(ta, measured) == _table_bytes(tb, measured)}  # fmt: skip
            sha = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (pa_, pb_)]
            row["sha256_equal"] = sha[0] == sha[1]
            if not row["equal_outside_measured"]:
                ra, rb = ta.to_pylist(), tb.to_pylist()
                diff = [(x.get("problem_id"), k) for x, y in zip(ra, rb) for k in x
                        if k not in measured and x[k] != y.get(k)]  # fmt: skip
                row["first_differences"] = diff[:10]
            out["files"][f"{kind}/{name}"] = row
    out["all_equal_outside_measured"] = all(r.get("equal_outside_measured") for r in out["files"].values())
    out["rejected_sha256_equal"] = all(r.get("sha256_equal") for k, r in out["files"].items() if k.startswith("rejected/"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=None, help="each build's --workers (default: all cores)")
    ap.add_argument("--stops", default="amplify:0.3,amplify:0.7,verify:0.5",
                    help="where the interrupted arm gets Ctrl-C: stage:fraction, comma-separated")
    ap.add_argument("--keep", type=Path, default=None, help="keep both outputs under this folder")
    ap.add_argument("--out", type=Path, default=HERE / "benchmarks" / "results" / "same_bytes_big.json")
    args = ap.parse_args()
    if not MBPP.exists():
        raise SystemExit(f"needs {MBPP}")
    stops = [(s.split(":")[0], float(s.split(":")[1])) for s in args.stops.split(",") if s]
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        a, b = root / "straight", root / "interrupted"
        for d in (a, b):
            if d.exists():
                raise SystemExit(f"{d} exists; give another --keep")
        ev: dict[str, list[dict[str, Any]]] = {"straight": [], "interrupted": []}
        rcs: dict[str, list[int]] = {"straight": [], "interrupted": []}
        walls: dict[str, float] = {}
        load_start = os.getloadavg()
        t0 = time.monotonic()

        def straight() -> None:
            rcs["straight"].append(_run(_command(a, args.workers), 1, ev["straight"], t0, None))
            walls["straight"] = time.monotonic() - t0

        def interrupted() -> None:
            seed = 2
            for stop in [*stops, None]:
                rc = _run(_command(b, args.workers), seed, ev["interrupted"], t0, stop)
                rcs["interrupted"].append(rc)
                seed += 1
                if rc == 0:
                    break
            walls["interrupted"] = time.monotonic() - t0

        threads = [threading.Thread(target=straight), threading.Thread(target=interrupted)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ok = rcs["straight"][-1] == 0 and rcs["interrupted"][-1] == 0
        if ok and len(rcs["interrupted"]) < 2:
            raise SystemExit(f"the interrupted arm was never stopped (return codes {rcs['interrupted']})")
        result: dict[str, Any] = {
            "command": " ".join(sys.argv),
            "build": " ".join(_command(Path("OUT"), args.workers)[1:]),
            "machine": f"{os.cpu_count()} CPUs, shared; both arms at once",
            "load_start": [round(x, 2) for x in load_start],
            "load_end": [round(x, 2) for x in os.getloadavg()],
            "return_codes": rcs,
            "wall_s": {k: round(v, 1) for k, v in walls.items()},
            "straight": {st: _tail(ev["straight"], st, walls["straight"], False) for st in STAGES},
            "interrupted_stops": [{"stage": s, "fraction": f} for s, f in stops],
            "rejected": _rejected(a),
        }
        if ok:
            result["compare"] = _compare(a, b)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    summary = {k: result[k] for k in ("return_codes", "wall_s")}
    if "compare" in result:
        c = result["compare"]
        summary |= {k: c[k] for k in ("all_equal_outside_measured", "rejected_sha256_equal")}
    print(json.dumps(summary | {"straight": result["straight"]}, indent=1))


if __name__ == "__main__":
    main()
