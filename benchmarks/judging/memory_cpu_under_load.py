"""Does touching memory cost a judged program more CPU on a loaded machine? (the memory-under-load
concern: a correct C++ program touching 200 MB was judged TLE at load 9-10, and a Python call
allocating 100 MB judged TLE where MLE was due, in CI)

Programs that touch N MB (C++ static arrays, every page written; Python `bytearray`) and a control
that touches nothing and computes for about as long, each judged by the sandbox many times, under
three conditions in turn: the machine as it is ("idle": no burner of ours, its own load recorded),
`--per-cpu` CPU burners per CPU, and as many memory burners (both from `burners.py`). For each
program and condition: the sandbox's CPU time (median, 90th percentile, max), its ratio to idle,
and how many runs a time limit would have judged TLE.
Beside the sandbox, the same binaries run bare (`wait4`), with user and system time apart, so
the report says where extra CPU is spent (the program's own instructions or the kernel's page
faults).

    nice python benchmarks/judging/memory_cpu_under_load.py     # 30 runs each, 2 burners a CPU
    nice python benchmarks/judging/memory_cpu_under_load.py --runs 5 --mb 50 \
        --out benchmarks/results/quick/memory_cpu_under_load.json   # a smoke run

Writes benchmarks/results/memory_cpu_under_load.json (or `--out`) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
RESULTS = REPO / "benchmarks" / "results" / "memory_cpu_under_load.json"

from benchmarks.house.burners import burners  # noqa: E402
from filters.sandbox import Sandbox  # noqa: E402

CPP_TOUCH = """#include <cstdio>
static char big[{mb}u << 20];
int main() {{
    volatile char* q = big;
    for (unsigned long i = 0; i < sizeof big; i += 4096) q[i] = 1;
    std::puts("ok");
}}
"""
#: computes for about as long as touching 200 MB takes on an idle machine, touching nothing
CPP_SPIN = """#include <cstdio>
int main() {{
    volatile unsigned long s = 0;
    for (unsigned long i = 0; i < {n}ul; i++) s += i ^ (s >> 3);
    std::puts("ok");
}}
"""
PY_TOUCH = "b = bytearray({mb} << 20)\nprint('ok')\n"


def bare(binary: Path) -> tuple[float, float]:
    """User and system CPU ms of one bare run of `binary` (no sandbox)."""
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.execv(str(binary), [str(binary)])
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    return ru.ru_utime * 1000.0, ru.ru_stime * 1000.0


def compile_bare(src: str, where: Path, name: str) -> Path:
    cpp, exe = where / f"{name}.cpp", where / name
    cpp.write_text(src)
    subprocess.run(["g++", "-O2", "-o", str(exe), str(cpp)], check=True)
    return exe


def spin_iterations(target_ms: float, where: Path) -> int:
    """Iterations of CPP_SPIN that take about `target_ms` of CPU here."""
    n = 20_000_000
    exe = compile_bare(CPP_SPIN.format(n=n), where, "calibrate")
    ms = float(np.median([sum(bare(exe)) for _ in range(5)]))
    return max(1, int(n * target_ms / max(ms, 1e-3)))


def stats(xs: list[float]) -> dict[str, float]:
    a = np.array(xs)
    return {
        "median": float(np.median(a)),
        "p90": float(np.percentile(a, 90)),
        "max": float(a.max()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--runs", type=int, default=30, help="judged runs of each program per condition"
    )
    ap.add_argument("--mb", type=int, nargs="+", default=[50, 200], help="MB each program touches")
    ap.add_argument("--per-cpu", type=int, default=2, help="burners per CPU")
    ap.add_argument("--limit-s", type=float, default=0.5, help="the time limit TLE is counted at")
    ap.add_argument("--memory-mb", type=float, default=512)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    if shutil.which("g++") is None:
        raise SystemExit("g++ is not installed: this benchmark judges C++ programs")
    n_burn = args.per_cpu * (os.cpu_count() or 1)
    tests = {"test_type": "stdio", "tests": [{"input": "", "output": "ok"}]}
    with tempfile.TemporaryDirectory(prefix="memcpu-") as tmp:
        where = Path(tmp)
        big = max(args.mb)
        touch_ms = float(np.median([sum(bare(compile_bare(CPP_TOUCH.format(mb=big), where, "t0")))
                                    for _ in range(5)]))  # fmt: skip
        programs: dict[str, tuple[str, str]] = {
            f"cpp touch {mb} MB": ("cpp", CPP_TOUCH.format(mb=mb)) for mb in args.mb
        }
        programs[f"cpp spin ({touch_ms:.0f} ms idle)"] = (
            "cpp", CPP_SPIN.format(n=spin_iterations(touch_ms, where)))  # fmt: skip
        programs.update(
            {f"python bytearray {mb} MB": ("python", PY_TOUCH.format(mb=mb)) for mb in args.mb}
        )
        exes = {name: compile_bare(src, where, f"p{i}") for i, (name, (lang, src)) in enumerate(programs.items())
                if lang == "cpp"}  # fmt: skip
        result: dict[str, Any] = {
            "command": "python benchmarks/judging/memory_cpu_under_load.py " + " ".join(sys.argv[1:]),
            "date": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(), "burners": n_burn,
            "runs": args.runs, "limit_s": args.limit_s, "memory_mb": args.memory_mb, "conditions": {},
        }  # fmt: skip
        limits = {"time_limit_s": args.limit_s * 4, "memory_limit_mb": args.memory_mb}
        with Sandbox(workers=args.workers, **limits) as sb:
            for cond in ("idle", "cpu", "mem"):
                with burners(n_burn if cond != "idle" else 0, 3600, cond, settle_s=2.0):
                    load0 = os.getloadavg()[0]
                    rows: dict[str, Any] = {}
                    for name, (lang, src) in programs.items():
                        cpu, verdicts = [], []
                        for _ in range(args.runs):  # the limit is 4x: the CPU measured, not cut
                            r = sb.run(tests, src, language=lang, **limits)
                            verdicts.append(r.verdict)
                            cpu.append(float(r.tests[0].cpu_ms or 0.0) if r.tests else float("nan"))
                        row: dict[str, Any] = {"sandbox_cpu_ms": stats(cpu), "verdicts": sorted(set(verdicts)),
                                               "over_limit": sum(c > args.limit_s * 1000 for c in cpu)}  # fmt: skip
                        if name in exes:
                            ut = [bare(exes[name]) for _ in range(args.runs)]
                            row["bare_user_ms"] = stats([u for u, _ in ut])
                            row["bare_sys_ms"] = stats([s for _, s in ut])
                        rows[name] = row
                        print(f"[{cond}] {name}: median {row['sandbox_cpu_ms']['median']:.0f} ms, "
                              f"max {row['sandbox_cpu_ms']['max']:.0f} ms", file=sys.stderr, flush=True)  # fmt: skip
                    result["conditions"][cond] = {"load_before": round(load0, 2),
                                                  "load_after": round(os.getloadavg()[0], 2), "programs": rows}  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    idle = result["conditions"]["idle"]["programs"]
    print(f"| program | condition (load) | sandbox CPU ms median / p90 / max | x idle (median) | runs over {args.limit_s:g} s "
          "| bare user ms (median) | bare sys ms (median) | verdicts |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for cond, c in result["conditions"].items():
        for name, row in c["programs"].items():
            s = row["sandbox_cpu_ms"]
            x = s["median"] / max(idle[name]["sandbox_cpu_ms"]["median"], 1e-9)
            u = f"{row['bare_user_ms']['median']:.0f}" if "bare_user_ms" in row else ""
            k = f"{row['bare_sys_ms']['median']:.0f}" if "bare_sys_ms" in row else ""
            print(f"| {name} | {cond} ({c['load_before']}-{c['load_after']}) | {s['median']:.0f} / {s['p90']:.0f} / "
                  f"{s['max']:.0f} | {x:.2f} | {row['over_limit']}/{args.runs} | {u} | {k} | {', '.join(row['verdicts'])} |")  # fmt: skip


if __name__ == "__main__":
    main()
