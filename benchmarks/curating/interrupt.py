"""How soon Ctrl-C stops a real build, and how much finished work the resumed build keeps (issue 42).

A `codemix build` of real data (MBPP and CodeContests rows from ../shared/data, amplify on) gets
SIGINT, as a terminal's Ctrl-C sends it, a few seconds into a stage (amplify, then verify);
the time from the signal to the process's exit is the latency. The build runs either on a
pseudo-terminal (`bar`: the live progress bar, its own thread) or with `--log-json` (`json`:
progress as JSON lines, which say how many problems the stage had judged when the signal came).
Each interrupted `json` build then says how many of those problems it kept (its finished
units' and parts' rows, in OUT/.work); `--resume` finishes it.

    nice python benchmarks/curating/interrupt.py                     # this checkout, 3 tries each
    nice python benchmarks/curating/interrupt.py --baseline ebdfffa  # and that commit's, same run
    nice python benchmarks/curating/interrupt.py --tries 1 --limit 20 \
        --out benchmarks/results/quick/interrupt.json                # a smoke run

Writes benchmarks/results/interrupt.json (or `--out`) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from load_determinism import export  # (benchmarks/curating/, beside this script)

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results" / "interrupt.json"


def command(out: Path, limit: int, json_lines: bool) -> list[str]:
    return [
        sys.executable, "-m", "curation.cli", "build",
        "--source", f"mbpp:{SHARED / 'mbpp.jsonl.gz'}",
        "--source", f"codecontests-subset:{SHARED / 'codecontests-subset300.jsonl.gz'}",
        "--limit", str(limit), "--out", str(out), "--workers", "2",
        *(["--log-json"] if json_lines else []),
    ]  # fmt: skip


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as on a terminal, whoever started us


def interrupt_json(code: Path, out: Path, stage: str, delay: float, limit: int) -> dict[str, Any]:
    """A `--log-json` build, SIGINT `delay` s after `stage` first reports: latency, and the
    problems of that stage judged by then."""
    env = dict(os.environ, PYTHONPATH=str(code))
    proc = subprocess.Popen(command(out, limit, True), cwd=code, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)  # fmt: skip
    assert proc.stderr is not None
    done, started, t_sig = 0, None, None
    try:
        while t_sig is None:
            ready = select.select([proc.stderr], [], [], 0.05)[0]
            if ready:
                line = proc.stderr.readline()
                if not line:
                    break
                if line.startswith("{"):
                    event = json.loads(line)
                    if event.get("stage") == stage:
                        done = int(event.get("done") or 0)
                        started = started or time.monotonic()
            if started is not None and time.monotonic() - started >= delay:
                proc.send_signal(signal.SIGINT)
                t_sig = time.monotonic()
        rest = proc.stderr.read()
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if t_sig is None:
        raise SystemExit(f"the build ended before {stage} ran {delay} s")
    latency = time.monotonic() - t_sig  # (the exit was read once stderr closed; `wait` returned)
    return {"latency_s": round(latency, 2), "exit": proc.returncode, "judged_before": done,
            "message": "rerun the same command to resume" in rest}  # fmt: skip


def interrupt_bar(code: Path, out: Path, stage: str, delay: float, limit: int) -> dict[str, Any]:
    """The same on a pseudo-terminal, the live bar drawing: latency only."""
    fd, term = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(code))
    proc = subprocess.Popen(command(out, limit, False), cwd=code, env=env, stdin=term, stdout=term, stderr=term,
                            preexec_fn=_default_sigint)  # fmt: skip
    os.close(term)
    shown, started, t_sig = bytearray(), None, None
    try:
        while proc.poll() is None:
            if select.select([fd], [], [], 0.05)[0]:
                try:
                    shown.extend(os.read(fd, 65536))
                except OSError:
                    break
            if started is None and stage.encode() in shown:
                started = time.monotonic()
            if t_sig is None and started is not None and time.monotonic() - started >= delay:
                proc.send_signal(signal.SIGINT)
                t_sig = time.monotonic()
        proc.wait(timeout=120)
        end = time.monotonic()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(fd)
    if t_sig is None:
        raise SystemExit(f"the build ended before {stage} ran {delay} s")
    return {"latency_s": round(end - t_sig, 2), "exit": proc.returncode,
            "message": b"rerun the same command to resume" in shown}  # fmt: skip


def kept_after(out: Path, stage: str) -> int:
    """Problems of `stage` an interrupted build keeps: its finished units' and its parts'."""
    from curation.pipeline import read_parts

    found = sorted((out / ".work").glob(f"*-{stage}"))
    if not found:
        return 0
    rows = 0
    for marker in found[0].glob("unit-*.json"):
        stats = json.loads(marker.read_text())
        rows += sum(stats["kept"].values()) + sum(stats["dropped"].values())
    return rows + sum(read_parts(p)[0] for p in found[0].glob("unit-*.parts"))


def resume(code: Path, out: Path, limit: int) -> float:
    """Finish the interrupted build; its wall time."""
    env = dict(os.environ, PYTHONPATH=str(code))
    t0 = time.monotonic()
    r = subprocess.run(command(out, limit, True), cwd=code, env=env, capture_output=True, text=True, timeout=3600)
    if r.returncode != 0:
        raise SystemExit(f"resume failed: {r.stderr[-2000:]}")
    return round(time.monotonic() - t0, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=60, help="rows read from each of MBPP and CodeContests")
    ap.add_argument("--tries", type=int, default=3, help="interrupts per stage and mode")
    ap.add_argument("--delays", type=float, nargs="+", default=[3.0, 8.0, 15.0],
                    help="seconds into the stage at which SIGINT comes, one per try (cycled)")
    ap.add_argument("--stages", nargs="+", default=["amplify", "verify"])
    ap.add_argument("--baseline", help="a commit whose code is interrupted the same way, in the same run")
    ap.add_argument("--resume", action="store_true", help="finish each interrupted json build (its wall time)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} is absent: this benchmark needs the real data")
    result: dict[str, Any] = {"command": "python benchmarks/curating/interrupt.py " + " ".join(sys.argv[1:]),
                              "date": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(), "runs": []}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="interrupt-") as tmp:
        work = Path(tmp)
        codes = {"ours": REPO}
        if args.baseline:
            codes = {"baseline": export(args.baseline, work / "baseline-code"), **codes}
            result["baseline"] = args.baseline
        for i in range(args.tries):
            delay = args.delays[i % len(args.delays)]
            for stage in args.stages:
                for mode in ("json", "bar"):
                    for name, code in codes.items():
                        out = work / f"{name}-{stage}-{mode}-{i}"
                        load0 = os.getloadavg()[0]
                        how = interrupt_json if mode == "json" else interrupt_bar
                        run = {"code": name, "stage": stage, "mode": mode, "delay_s": delay,
                               **how(code, out, stage, delay, args.limit), "load": round(load0, 2)}  # fmt: skip
                        if mode == "json":
                            run["kept_on_resume"] = kept_after(out, stage)
                            if args.resume:
                                run["resume_wall_s"] = resume(code, out, args.limit)
                        shutil.rmtree(out, ignore_errors=True)
                        result["runs"].append(run)
                        print(json.dumps(run), file=sys.stderr, flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print("| code | mode | latency s (median, max) | tries | judged before Ctrl-C | kept on resume | load |")
    print("|---|---|---|---|---|---|---|")
    for name in codes:
        for mode in ("json", "bar"):
            runs = [r for r in result["runs"] if r["code"] == name and r["mode"] == mode]
            lat = [r["latency_s"] for r in runs]
            judged = sum(r.get("judged_before", 0) for r in runs)
            kept = sum(r.get("kept_on_resume", 0) for r in runs)
            loads = [r["load"] for r in runs]
            print(f"| {name} | {mode} | {statistics.median(lat):.2f}, {max(lat):.2f} | {len(runs)} | "
                  f"{judged if mode == 'json' else '-'} | {kept if mode == 'json' else '-'} | "
                  f"{min(loads):.1f}-{max(loads):.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
