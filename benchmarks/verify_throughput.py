"""Sandbox throughput against one `python3` process per test, on the same problems in one run.

(a) baseline: `subprocess.run([python, prog.py])` per test (stdio) or per check run (assert),
    with the same parallelism and the same strict comparator;
(b) ours: `filters.sandbox.Sandbox` (pre-started fork servers, one confined child per test).

Prints tests/s of each, the ratio, the per-test overhead on a trivial program, verdict agreement,
and a leak check over many runs; writes benchmarks/results/verify_throughput.json.

    .venv/bin/python benchmarks/verify_throughput.py [--cc 100] [--lc 100] [--workers 2] [--leak-runs 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from curation.schema import RecordError, normalize_record
from curation.sources import iter_source
from filters.compare import compare_stdio
from filters.sandbox import Sandbox

RESULTS = Path(__file__).with_name("results") / "verify_throughput.json"
TIME_LIMIT_S = 10.0
#: The baseline's environment: the same fixed hash seed as the sandbox, so verdicts can agree.
BASE_ENV = {**os.environ, "PYTHONHASHSEED": "0"}


def load(name: str, n: int) -> list[dict[str, Any]]:
    out = []
    for r in iter_source(name, limit=n):
        if not isinstance(r, RecordError):
            try:
                out.append(normalize_record(r))
            except RecordError:
                pass
    return out


def baseline_one(prog: Path, stdin: str, expected: str | None) -> tuple[str, float]:
    """One fresh interpreter: the verdict and its wall ms."""
    t = time.perf_counter()
    infile = prog.parent / f"in{threading.get_ident()}.txt"
    infile.write_text(stdin)  # stdin is a file, as on a judge (os.fstat(0).st_size works)
    try:
        with open(infile, "rb") as f:
            p = subprocess.run([sys.executable, str(prog)], stdin=f, capture_output=True,
                               timeout=TIME_LIMIT_S * 3, cwd=prog.parent, env=BASE_ENV)
    except subprocess.TimeoutExpired:
        return "TLE", (time.perf_counter() - t) * 1000
    ms = (time.perf_counter() - t) * 1000
    if p.returncode != 0:
        return ("WA" if b"AssertionError" in p.stderr else "RE"), ms
    if expected is None:
        return "AC", ms
    return ("AC" if compare_stdio(expected, p.stdout.decode("utf-8", "replace")) else "WA"), ms


def baseline_units(problems: list[dict[str, Any]], tmp: Path) -> list[tuple[Path, str, str | None]]:
    """(program file, stdin, expected stdout or None for an assert run) per unit of work."""
    units = []
    for k, p in enumerate(problems):
        d = tmp / f"p{k}"
        d.mkdir()
        prog = d / "prog.py"
        if p["test_type"] == "stdio":
            prog.write_text(p["solutions"][0])
            units += [(prog, t["input"], t["output"]) for t in p["tests"]]
        else:
            test = p["test_code"] + (f"\ncheck({p['entry_point']})\n" if "def check" in p["test_code"] else "")
            prog.write_text(p["solutions"][0] + "\n\n" + test)
            units.append((prog, "", None))
    return units


def bench(problems: list[dict[str, Any]], workers: int, label: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        units = baseline_units(problems, Path(tmp))
        t = time.perf_counter()
        with ThreadPoolExecutor(workers) as ex:
            base = list(ex.map(lambda u: baseline_one(*u), units))
        base_s = time.perf_counter() - t
    with Sandbox(workers, time_limit_s=TIME_LIMIT_S) as sb:
        t = time.perf_counter()
        res = sb.run_many([(p, p["solutions"][0]) for p in problems])
        ours_s = time.perf_counter() - t
    # Per-unit verdicts in the same order as the baseline units.
    ours: list[str] = []
    for p, r in zip(problems, res):
        if p["test_type"] == "stdio":
            ours += [t.verdict for t in r.tests] + ["-"] * (len(p["tests"]) - len(r.tests))
        else:
            ours.append(r.verdict)
    base_v = [v for v, _ in base]
    agree = sum(a == b for a, b in zip(base_v, ours))
    n = len(units)
    return {
        "set": label, "problems": len(problems), "units": n,
        "baseline_s": round(base_s, 2), "ours_s": round(ours_s, 2),
        "baseline_units_per_s": round(n / base_s, 1), "ours_units_per_s": round(n / ours_s, 1),
        "ratio": round(base_s / ours_s, 2), "agree": agree,
        "disagree": [(i, a, b) for i, (a, b) in enumerate(zip(base_v, ours)) if a != b][:10],
        "ours_ac_units": sum(v == "AC" for v in ours), "baseline_ac_units": sum(v == "AC" for v in base_v),
    }


def overhead(workers: int, n: int = 400) -> dict[str, Any]:
    """Per-test cost of a trivial program: fresh interpreter against our fork server (one worker)."""
    trivial = {"test_type": "stdio", "tests": [{"input": "", "output": "1"}] * n}
    with tempfile.TemporaryDirectory() as tmp:
        prog = Path(tmp) / "prog.py"
        prog.write_text("print(1)")
        t = time.perf_counter()
        for _ in range(n // 4):
            baseline_one(prog, "", "1")
        base_ms = (time.perf_counter() - t) * 1000 / (n // 4)
    def children_cpu_s() -> float:
        """CPU of this process's reaped children: a closed sandbox's workers and all they forked."""
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    def pool(run: bool) -> tuple[float, float, Any]:
        """(workers' CPU, our CPU) of a one-worker sandbox's whole life, with or without the run."""
        c0, p0 = children_cpu_s(), time.process_time()
        r = None
        with Sandbox(1) as sb:
            sb.run(trivial, "print(1)", tests=trivial["tests"][:5])
            if run:
                r = sb.run(trivial, "print(1)")
        return children_cpu_s() - c0, time.process_time() - p0, r

    # the run's share: a pool that ran it, less one that only started, warmed up and stopped
    w_run, p_run, r = pool(True)
    w_idle, p_idle, _ = pool(False)
    worker_and_children_ms = (w_run - w_idle) * 1000 / n
    parent_ms = (p_run - p_idle) * 1000 / n
    with Sandbox(1) as sb:
        sb.run(trivial, "print(1)", tests=trivial["tests"][:5])
        t = time.perf_counter()
        sb.run(trivial, "print(1)")
        ours_ms = (time.perf_counter() - t) * 1000 / n
        one = {"test_type": "stdio", "tests": trivial["tests"][:1]}
        t = time.perf_counter()
        for _ in range(n // 2):  # each program is its own session: a fork, a compile, an exit
            sb.run(one, "print(1)")
        program_ms = (time.perf_counter() - t) * 1000 / (n // 2)
    assert r.verdict == "AC"
    child_ms = r.cpu_ms / n
    worker_ms = worker_and_children_ms - child_ms  # the fork server and the program's session
    return {"baseline_ms_per_test": round(base_ms, 2), "ours_ms_per_test": round(ours_ms, 2),
            "ratio": round(base_ms / ours_ms, 1),
            # a one-test program: the per-program cost (its session) on top of the test
            "ours_ms_per_one_test_program": round(program_ms, 2),
            # CPU the harness spends per trivial test, whatever the machine's load: the fork server,
            # the parent, and the child (fork, setup, a `print(1)`, interpreter-like shutdown).
            "harness_cpu_ms_per_test": {"worker": round(worker_ms, 2), "parent": round(parent_ms, 2),
                                        "child": round(child_ms, 2),
                                        "total": round(worker_ms + parent_ms + child_ms, 2)}}


def leak_check(runs: int, workers: int) -> dict[str, Any]:
    """Many runs, some hostile: the parent's fds, threads and children must not grow."""
    p = {"test_type": "stdio", "tests": [{"input": "", "output": "1"}]}
    codes = ["print(1)", "import os\nos._exit(1)", "import os\nif os.fork() == 0:\n    import time; time.sleep(60)\nprint(1)",
             "raise SystemExit(3)"]

    def state() -> tuple[int, int, int]:
        me = os.getpid()
        kids = len(Path(f"/proc/{me}/task/{me}/children").read_text().split())
        return len(os.listdir("/proc/self/fd")), kids, len(os.listdir("/proc/self/task"))

    with Sandbox(workers, time_limit_s=2) as sb:
        sb.run(p, "print(1)")
        before = state()
        t = time.perf_counter()
        done = 0
        while done < runs:
            k = min(1000, runs - done)
            sb.run_many([(p, codes[i % len(codes)]) for i in range(k)])
            done += k
        secs = time.perf_counter() - t
        after = state()
    return {"runs": runs, "seconds": round(secs, 1), "fds_before_after": [before[0], after[0]],
            "children_before_after": [before[1], after[1]], "threads_before_after": [before[2], after[2]],
            "leak_free": before == after}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cc", type=int, default=100, help="CodeContests-subset problems (stdio)")
    ap.add_argument("--lc", type=int, default=100, help="LeetCodeDataset problems (assert)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--leak-runs", type=int, default=2000)
    args = ap.parse_args()
    out: dict[str, Any] = {"machine": f"{os.cpu_count()} CPUs, {sys.version.split()[0]}", "workers": args.workers}
    out["overhead"] = overhead(args.workers)
    print("per-test overhead (trivial program):", out["overhead"], flush=True)
    rows = []
    if args.cc:
        rows.append(bench(load("codecontests-subset", args.cc), args.workers, "codecontests-subset (stdio)"))
        print(rows[-1], flush=True)
    if args.lc:
        rows.append(bench(load("leetcodedataset", args.lc), args.workers, "leetcodedataset (assert)"))
        print(rows[-1], flush=True)
    out["sets"] = rows
    if args.leak_runs:
        out["leaks"] = leak_check(args.leak_runs, args.workers)
        print("leak check:", out["leaks"], flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2))
    print()
    print(f"{'set':32} {'units':>6} {'baseline/s':>11} {'ours/s':>8} {'ratio':>6} {'agree':>9}")
    for r in rows:
        print(f"{r['set']:32} {r['units']:>6} {r['baseline_units_per_s']:>11} {r['ours_units_per_s']:>8} "
              f"{r['ratio']:>5}x {r['agree']:>4}/{r['units']}")
    o = out["overhead"]
    print(f"trivial test: baseline {o['baseline_ms_per_test']} ms, ours {o['ours_ms_per_test']} ms "
          f"({o['ratio']}x); written {RESULTS}")


if __name__ == "__main__":
    main()
