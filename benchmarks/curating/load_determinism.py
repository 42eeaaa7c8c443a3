"""Is a build's content a function of its command and data, and not of the machine's load? (issue 42)

The same `codemix build` of real data (MBPP and CodeContests rows from ../shared/data, amplify on)
three times: on the machine as it is ("idle": no burner of ours; the shared machine has its own
load, recorded), under a CPU burner on every core (one busy-loop process per CPU), and killed with
SIGKILL mid-way then resumed, both under the same burner. The shards are compared outside the
columns the manifest declares measured (`tests/curation/reproducible.py`): a problem kept by one
build only, rejected elsewhere, or with another value in a column, is a difference.

    nice python benchmarks/curating/load_determinism.py                     # this checkout
    nice python benchmarks/curating/load_determinism.py --baseline ebdfffa  # and that commit's too
    nice python benchmarks/curating/load_determinism.py --mbpp 20 --cc 20 --burners 1 \
        --out benchmarks/results/quick/load_determinism.json                # a smoke run

`--baseline REV` exports that commit (`git archive`) to a temporary directory and runs the same
three builds with its code, interleaved with ours so that the machine's own load drifts over
both. `--kill-at STAGE:ROWS` says when the killed build dies: once STAGE has reported ROWS
problems done. Burners are plain `while True: pass` processes that die with this script (and
after `--burner-max-s` in any case). Writes benchmarks/results/load_determinism.json (or `--out`)
and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # tests/ is not installed: the comparison lives there
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results" / "load_determinism.json"

from benchmarks.house.burners import burners  # noqa: E402
from tests.curation.reproducible import differences  # noqa: E402


def build_command(code: Path, out: Path, args: argparse.Namespace) -> list[str]:
    return [
        sys.executable, "-m", "curation.cli", "build",
        "--source", f"mbpp:{SHARED / 'mbpp.jsonl.gz'}", "--source",
        f"codecontests-subset:{SHARED / 'codecontests-subset300.jsonl.gz'}",
        "--limit", str(args.limit), "--out", str(out), "--workers", str(args.workers), "--log-json",
    ]  # fmt: skip


def run_build(code: Path, out: Path, args: argparse.Namespace, kill_at: tuple[str, int] | None = None) -> dict[str, Any]:
    """One build with the code in `code`; with `kill_at` (stage, rows) SIGKILLed once that stage
    reports that many problems done. Returns its wall time, load and how it ended."""
    env = dict(os.environ, PYTHONPATH=str(code))
    load0, t0 = os.getloadavg()[0], time.monotonic()
    proc = subprocess.Popen(build_command(code, out, args), cwd=code, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    killed_at = None
    tail: list[str] = []
    assert proc.stderr is not None
    try:
        for line in proc.stderr:
            tail = (tail + [line])[-20:]
            if kill_at is None or not line.startswith("{"):
                continue
            event = json.loads(line)
            if event.get("stage") == kill_at[0] and int(event.get("done") or 0) >= kill_at[1]:
                if event.get("total") is not None and event["done"] < event["total"]:
                    proc.send_signal(signal.SIGKILL)
                    killed_at = f"{event['stage']} {event['done']}/{event['total']}"
                    break
        rc = proc.wait(timeout=3600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    wall = time.monotonic() - t0
    if killed_at is None and rc != 0:
        raise SystemExit(f"build {out} failed ({rc}):\n{''.join(tail)}")
    return {"wall_s": round(wall, 1), "load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2),
            "killed_at": killed_at}  # fmt: skip


def three_builds(name: str, code: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The idle build, the burner build, and the killed-and-resumed one; their differences."""
    stage, rows = args.kill_at.split(":")
    runs: dict[str, Any] = {}
    idle, loaded, resumed = work / f"{name}-idle", work / f"{name}-burner", work / f"{name}-resumed"
    print(f"[{name}] idle build", file=sys.stderr, flush=True)
    runs["idle"] = run_build(code, idle, args)
    with burners(args.burners, args.burner_max_s):
        print(f"[{name}] build under {args.burners} burners", file=sys.stderr, flush=True)
        runs["burner"] = run_build(code, loaded, args)
        print(f"[{name}] build killed at {args.kill_at}, then resumed, under the burners", file=sys.stderr, flush=True)
        runs["killed"] = run_build(code, resumed, args, kill_at=(stage, int(rows)))
        runs["resumed"] = run_build(code, resumed, args)
    kept = json.loads((idle / "manifest.json").read_text())["counts"]["output"]
    result = {
        "runs": runs,
        "kept": sum(kept.values()),
        "differences": {
            "burner_vs_idle": differences(idle, loaded),
            "resumed_vs_idle": differences(idle, resumed),
        },
    }
    for key, diff in result["differences"].items():
        print(f"[{name}] {key}: {len(diff)} of {result['kept']} kept problems differ {sorted(diff)[:8]}",
              file=sys.stderr, flush=True)  # fmt: skip
    return result


def export(rev: str, where: Path) -> Path:
    """The tree of commit `rev`, exported (no git metadata touched)."""
    where.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return where


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=60, help="rows read from each of MBPP and CodeContests")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--burners", type=int, default=os.cpu_count() or 1, help="busy-loop processes")
    ap.add_argument("--burner-max-s", type=float, default=3600.0)
    ap.add_argument("--kill-at", default="amplify:32", help="STAGE:ROWS at which the killed build dies")
    ap.add_argument("--baseline", help="a commit whose code runs the same builds, for comparison")
    ap.add_argument("--ours", help="a commit to measure as ours instead of this checkout's files")
    ap.add_argument("--rounds", type=int, default=1, help="times each code's three builds run")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} is absent: this benchmark needs the real data")
    result: dict[str, Any] = {
        "command": "python benchmarks/curating/load_determinism.py " + " ".join(sys.argv[1:]),
        "cpus": os.cpu_count(), "burners": args.burners, "limit_per_source": args.limit,
        "workers": args.workers, "kill_at": args.kill_at, "date": time.strftime("%Y-%m-%d %H:%M"),
        "rounds": {},
    }  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="load-determinism-") as tmp:
        work = Path(tmp)
        codes = {"ours": export(args.ours, work / "ours-code") if args.ours else REPO}
        if args.ours:
            result["ours"] = args.ours
        if args.baseline:
            codes = {"baseline": export(args.baseline, work / "baseline-code"), **codes}
            result["baseline"] = args.baseline
        for r in range(args.rounds):
            for name, code in codes.items():
                result["rounds"].setdefault(name, []).append(three_builds(f"{name}{r}", code, work / f"r{r}", args))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print("| code | round | kept | burner vs idle | resumed vs idle | load (idle / burner / resumed) |")
    print("|---|---|---|---|---|---|")
    for name, rounds in result["rounds"].items():
        for i, res in enumerate(rounds):
            d, runs = res["differences"], res["runs"]
            loads = " / ".join(f"{runs[k]['load_before']}-{runs[k]['load_after']}" for k in ("idle", "burner", "resumed"))
            print(f"| {name} | {i} | {res['kept']} | {len(d['burner_vs_idle'])} | {len(d['resumed_vs_idle'])} | {loads} |")


if __name__ == "__main__":
    main()
