"""What judging with a compiled testlib checker costs against exact comparison (issue 54).

The same programs (a correct and a wrong one, in Python and in C++) on the same tests, judged
three ways: exact comparison in the sandbox's process (`comparison`), testlib's `wcmp` compiled
from the shipped source (a C++ checker, one confined run per test), and a Python `check()` that
does what wcmp does (the existing Python checker path). Reported per test: the wall time of a
whole judging divided by its tests, best of `--repeats`, and the checker's compile (once per
machine: a copy of wcmp's source no cache holds is judged first, so that judging pays it).

    python benchmarks/judging/checker_cost.py --tests 40 --repeats 3 --out benchmarks/results/checker_cost.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from filters.sandbox import Sandbox, checkers  # noqa: E402

PY = "import sys\nd = sys.stdin.read().split()\nprint(' '.join(str(int(x) * 2) for x in d[1:]))\n"
PY_WRONG = PY.replace("* 2", "* 3")
CPP = ('#include <cstdio>\nint main() { int n; scanf("%d", &n); for (int i = 0; i < n; i++)'
       ' { long long x; scanf("%lld", &x); printf("%lld ", 2 * x); } printf("\\n"); }\n')
PY_CHECK = "def check(input, expected, actual):\n    return expected.split() == actual.split()\n"


def problem(tests: int, checker: str | None) -> dict:
    out = []
    for t in range(tests):
        xs = list(range(t, t + 200))
        out.append({"input": f"{len(xs)}\n{' '.join(map(str, xs))}\n",
                    "output": " ".join(str(2 * x) for x in xs) + "\n"})
    return {"test_type": "stdio", "tests": out, "checker": checker, "time_limit_s": 2.0}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="benchmarks/results/checker_cost.json")
    args = ap.parse_args()
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    res: dict = {"command": " ".join(sys.argv), "load_start": uptime, "tests": args.tests,
                 "rows": []}  # fmt: skip
    with Sandbox(workers=1) as sb:
        # wcmp's source with a comment of its own: a checker no cache holds yet, compiled here
        fresh = checkers.checker_source("wcmp") + f"\n// checker_cost {time.time_ns()}\n"
        t = time.perf_counter()
        first = sb.run(problem(1, fresh), PY)
        res["wcmp_first_judging_s"] = round(time.perf_counter() - t, 3)
        assert first.verdict == "AC", first
        for judge, checker in (("exact", None), ("wcmp (C++)", "wcmp"), ("python check()", PY_CHECK)):
            for name, code, lang in (("python", PY, "python"), ("python wrong", PY_WRONG, "python"),
                                     ("cpp", CPP, "cpp")):  # fmt: skip
                best = float("inf")
                for _ in range(args.repeats):
                    t = time.perf_counter()
                    r = sb.run(problem(args.tests, checker), code, language=lang,
                               stop_on_failure=False)  # fmt: skip
                    best = min(best, time.perf_counter() - t)
                res["rows"].append({"judge": judge, "program": name, "verdict": r.verdict,
                                    "ms_per_test": round(1000 * best / args.tests, 2)})  # fmt: skip
                print(res["rows"][-1], flush=True)
    res["load_end"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    res["cpus"] = os.cpu_count()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
