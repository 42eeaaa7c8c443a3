"""C++ in the sandbox: what a program costs, grading throughput against plain g++ and a fresh
process per test, and Python and C++ verdicts on the same tests, in one run.

Sections (each prints its numbers and the load average; `--sections` picks some):
  cost        distinct one-test C++ programs (a + b) through one worker, one after the other:
              compile CPU and wall ms, then the run's CPU and wall ms per test; a Python one-test
              program beside it; and `g++` alone on the same source, with and without the
              precompiled header (wall ms)
  throughput  C++ completions (the hand-written references below, each in `--variants` copies
              that differ by a comment, so each compiles) on their problems' tests through
              (a) plain `g++ -O2 -std=gnu++17` into a temporary directory, then a fresh process
              per test (`subprocess.run`, rlimits for CPU and memory, the same strict comparator)
              and (b) `Sandbox.run_many`, with the same parallelism: completions/s, ratio, and
              per-test verdict agreement
  agree       the Python reference and the C++ one of each problem on every test: per-test
              verdicts must agree; and the verify stage, with Python references alone and with
              both languages: problems kept

The CodeContests subset in ../shared/data ships Python references only: the C++ ones
(benchmarks/data/codecontests_cpp_refs.json, ten problems) were written by hand for this
benchmark, each after its problem's Python reference. Writes benchmarks/results/cpp_sandbox.json.

    .venv/bin/python benchmarks/judging/cpp_sandbox.py [--workers 2] [--variants 4] [--programs 20]
        [--sections cost,throughput,agree] [--quick]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from filters.compare import explain_stdio  # noqa: E402
from filters.sandbox import Sandbox  # noqa: E402
from filters.sandbox.cpp import CXX_FLAGS, LINK_FLAGS, Toolchain, toolchain  # noqa: E402

NO_STATIC = Toolchain("g++", None, False)
RESULTS = Path(__file__).resolve().parents[1] / "results" / "cpp_sandbox.json"
REFS = Path(__file__).resolve().parents[1] / "data" / "codecontests_cpp_refs.json"
DATA = REPO.parent / "shared" / "data" / "codecontests-subset300.jsonl.gz"
SECTIONS = ("cost", "throughput", "agree")
#: CPU per test (CodeContests' own limits for these problems are 1 to 2 s)
TIME_LIMIT_S = 3.0
MEMORY_MB = 1024
ADD_CPP = (
    "#include <bits/stdc++.h>\n// variant {i}\n"
    "int main() {{ long long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }}\n"
)
ADD_PY = "# variant {i}\na, b = map(int, input().split())\nprint(a + b)\n"
ONE_TEST = {"test_type": "stdio", "tests": [{"input": "2 3\n", "output": "5\n"}]}


def load_avg() -> float:
    return round(os.getloadavg()[0], 2)


def problems() -> list[dict[str, Any]]:
    """The problems with a hand-written C++ reference, as canonical stdio problems."""
    refs = json.loads(REFS.read_text())["solutions"]
    out = []
    with gzip.open(DATA, "rt") as f:
        for line in f:
            row = json.loads(line)
            if row["id"] in refs:
                out.append(
                    {
                        "id": row["id"],
                        "test_type": "stdio",
                        "tests": row["tests"],
                        "python": row["solution"],
                        "cpp": refs[row["id"]],
                    }
                )
    return sorted(out, key=lambda p: p["id"])


def ms(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2)}


def link(tc: Toolchain) -> tuple[str, ...]:
    return LINK_FLAGS if tc.static else ()


# ---- cost ----------------------------------------------------------------------------------------
def gxx_wall_ms(source: str, pch: bool, tmp: Path) -> float:
    tc = toolchain()
    assert tc is not None
    include = ["-I", tc.pch_dir] if pch and tc.pch_dir else []
    t = time.perf_counter()
    subprocess.run(
        [tc.compiler, *CXX_FLAGS, *link(tc), *include, "-x", "c++", "-", "-o", str(tmp / "a.out")],
        input=source.encode(),
        check=True,
    )
    return (time.perf_counter() - t) * 1000


def section_cost(n: int) -> dict[str, Any]:
    compile_cpu, compile_wall, run_cpu, run_wall, py_wall, py_cpu = [], [], [], [], [], []
    with Sandbox(workers=1) as sb:
        sb.run(ONE_TEST, ADD_CPP.format(i="warm"), language="cpp")  # the header, once
        for i in range(n):
            t = time.perf_counter()
            r = sb.run(ONE_TEST, ADD_CPP.format(i=i), language="cpp")
            total = (time.perf_counter() - t) * 1000
            assert r.verdict == "AC", r.first_failure
            compile_cpu.append(r.compile_ms)
            compile_wall.append(total - r.wall_ms)
            run_cpu.append(r.cpu_ms)
            run_wall.append(r.wall_ms)
            t = time.perf_counter()
            p = sb.run(ONE_TEST, ADD_PY.format(i=i))
            py_wall.append((time.perf_counter() - t) * 1000)
            py_cpu.append(p.cpu_ms)
        again = []
        for _ in range(n):  # a source judged before: its binary is reused
            t = time.perf_counter()
            sb.run(ONE_TEST, ADD_CPP.format(i=0), language="cpp")
            again.append((time.perf_counter() - t) * 1000)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        plain = [gxx_wall_ms(ADD_CPP.format(i=i), False, tmp) for i in range(max(3, n // 4))]
        pch = [gxx_wall_ms(ADD_CPP.format(i=i), True, tmp) for i in range(max(3, n // 4))]
    out = {
        "programs": n,
        "compile_cpu_ms": ms(compile_cpu),
        "compile_wall_ms": ms(compile_wall),
        "run_cpu_ms_per_test": ms(run_cpu),
        "run_wall_ms_per_test": ms(run_wall),
        "cached_binary_wall_ms_per_program": ms(again),
        "python_run_cpu_ms_per_test": ms(py_cpu),
        "python_program_wall_ms": ms(py_wall),
        "gxx_plain_wall_ms": ms(plain),
        "gxx_with_pch_wall_ms": ms(pch),
        "load": load_avg(),
    }
    print(json.dumps({"cost": out}, indent=1))
    return out


# ---- throughput ------------------------------------------------------------------------------------
def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (int(TIME_LIMIT_S) + 1, int(TIME_LIMIT_S) + 2))
    resource.setrlimit(resource.RLIMIT_AS, ((MEMORY_MB + 256) << 20, (MEMORY_MB + 256) << 20))


def baseline_one(problem: dict[str, Any], source: str) -> list[str]:
    """Plain g++, then a fresh process per test: per-test verdicts (CE: one for all)."""
    tc = toolchain()
    assert tc is not None
    with tempfile.TemporaryDirectory() as d:
        exe = Path(d) / "a.out"
        done = subprocess.run(
            [tc.compiler, *CXX_FLAGS, *link(tc), "-x", "c++", "-", "-o", str(exe)],
            input=source.encode(),
            capture_output=True,
        )
        if done.returncode != 0:
            return ["CE"] * len(problem["tests"])
        verdicts = []
        for t in problem["tests"]:
            try:
                p = subprocess.run(
                    [str(exe)],
                    input=t["input"].encode(),
                    capture_output=True,
                    timeout=3 * TIME_LIMIT_S + 1,
                    preexec_fn=_limits,
                    cwd=d,
                )
            except subprocess.TimeoutExpired:
                verdicts.append("TLE")
                continue
            if p.returncode != 0:
                verdicts.append("RE")
                continue
            out = p.stdout.decode("utf-8", "replace")
            verdicts.append("AC" if explain_stdio(t["output"], out) is None else "WA")
        return verdicts


def section_throughput(workers: int, variants: int, probs: list[dict[str, Any]]) -> dict[str, Any]:
    jobs = [(p, p["cpp"] + f"\n// variant {v}\n") for v in range(variants) for p in probs]
    tests = sum(len(p["tests"]) for p, _ in jobs)
    order = ("baseline", "sandbox", "baseline", "sandbox")  # alternating: the load hits both
    times: dict[str, list[float]] = {"baseline": [], "sandbox": []}
    verdicts: dict[str, list[list[str]]] = {}
    with Sandbox(workers=workers) as sb:
        sb.run(ONE_TEST, ADD_CPP.format(i="warm"), language="cpp")  # the header, once
        for rnd, who in enumerate(order):
            # fresh sources every round: nothing is reused from the sandbox's binary cache
            batch = [(p, src + f"// round {rnd}\n") for p, src in jobs]
            t = time.perf_counter()
            if who == "sandbox":
                results = sb.run_many(
                    [(p, s, {"language": "cpp", "time_limit_s": TIME_LIMIT_S}) for p, s in batch]
                )
                got = [[x.verdict for x in r.tests] or [r.verdict] * len(p["tests"])
                       for (p, _), r in zip(batch, results)]  # fmt: skip
            else:
                with ThreadPoolExecutor(workers) as ex:
                    got = list(ex.map(lambda j: baseline_one(*j), batch))
            times[who].append(time.perf_counter() - t)
            verdicts[who] = got
    agree = sum(a == b for x, y in zip(verdicts["baseline"], verdicts["sandbox"])
                for a, b in zip(x, y))  # fmt: skip
    best = {k: min(v) for k, v in times.items()}
    out = {
        "workers": workers,
        "completions": len(jobs),
        "tests": tests,
        "baseline_s": [round(x, 2) for x in times["baseline"]],
        "sandbox_s": [round(x, 2) for x in times["sandbox"]],
        "baseline_completions_per_s": round(len(jobs) / best["baseline"], 2),
        "sandbox_completions_per_s": round(len(jobs) / best["sandbox"], 2),
        "ratio": round(best["baseline"] / best["sandbox"], 2),
        "test_verdicts_agree": f"{agree}/{tests}",
        "sandbox_verdicts": _count(verdicts["sandbox"]),
        "load": load_avg(),
    }
    print(json.dumps({"throughput": out}, indent=1))
    return out


def _count(per_job: list[list[str]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for vs in per_job:
        for v in vs:
            counts[v] = counts.get(v, 0) + 1
    return counts


# ---- agree -----------------------------------------------------------------------------------------
def section_agree(workers: int, probs: list[dict[str, Any]]) -> dict[str, Any]:
    from curation.record_files import records_to_table
    from curation.schema import normalize_record
    from filters.settings import VerifyConfig
    from filters.stages.verify.stage import VerifyStage

    rows = []
    with Sandbox(workers=workers) as sb:
        jobs = [(p, p["python"], {"time_limit_s": TIME_LIMIT_S}) for p in probs]
        jobs += [(p, p["cpp"], {"time_limit_s": TIME_LIMIT_S, "language": "cpp"}) for p in probs]
        res = sb.run_many(jobs)
        py, cc = res[: len(probs)], res[len(probs) :]
        shared = agree = limited = 0
        per_problem = {}
        for p, a, b in zip(probs, py, cc):
            va, vb = [t.verdict for t in a.tests], [t.verdict for t in b.tests]
            # a test both ran to the end: neither stopped at a limit (a slow Python reference)
            both = [(x, y) for x, y in zip(va, vb) if not {x, y} & {"TLE", "MLE"}]
            same = sum(x == y for x, y in both)
            shared += len(both)
            agree += same
            limited += len(va) - len(both)
            per_problem[p["id"]] = {
                "python": a.verdict,
                "cpp": b.verdict,
                "agree": f"{same}/{len(both)}",
                "python_cpu_ms": round(a.cpu_ms, 1),
                "cpp_cpu_ms": round(b.cpu_ms, 1),
            }
        for p in probs:
            base = {"id": p["id"], "source": "cc", "statement": p["id"], "test_type": "stdio",
                    "tests": p["tests"], "time_limit_s": TIME_LIMIT_S}  # fmt: skip
            rows.append((base, p))
        stage = VerifyStage(VerifyConfig(min_tests=5, repeats=2, mutants=4), sandbox=sb)
        kept = {}
        for name, langs in (("python_alone", ("python",)), ("every_language", ("python", "cpp"))):
            recs = [
                normalize_record(
                    dict(
                        base,
                        solutions=[p[lang] for lang in langs],
                        solution_languages=list(langs),
                    )
                )
                for base, p in rows
            ]
            t = time.perf_counter()
            result = stage.process(records_to_table(recs))
            kept[name] = {
                "kept": result.kept.num_rows,
                "of": len(recs),
                "seconds": round(time.perf_counter() - t, 1),
                "passing_languages": {
                    r["id"]: r["passing_languages"] for r in result.kept.to_pylist()
                },
            }
    out = {
        "problems": len(probs),
        "shared_tests": shared,
        "verdicts_agree": f"{agree}/{shared}",
        "tests_stopped_at_a_limit": limited,
        "per_problem": per_problem,
        "verify": kept,
        "load": load_avg(),
    }
    print(json.dumps({"agree": out}, indent=1))
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--variants", type=int, default=4)
    ap.add_argument("--programs", type=int, default=20)
    ap.add_argument("--sections", default=",".join(SECTIONS))
    ap.add_argument("--quick", action="store_true", help="a smoke run: few programs, one variant")
    args = ap.parse_args(argv)
    if shutil.which("g++") is None:
        raise SystemExit("no g++ here")
    if args.quick:
        args.variants, args.programs = 1, 3
    probs = problems() if DATA.exists() else []
    if args.quick:
        probs = probs[:3]
    sections = args.sections.split(",")
    out: dict[str, Any] = {
        "machine": f"{os.cpu_count()} CPUs, load {load_avg()} at start",
        "gxx": subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.split(
            "\n"
        )[0],
        "flags": list(CXX_FLAGS) + list(link(toolchain() or NO_STATIC)),
    }
    if "cost" in sections:
        out["cost"] = section_cost(args.programs)
    if probs and "throughput" in sections:
        out["throughput"] = section_throughput(args.workers, args.variants, probs)
    if probs and "agree" in sections:
        out["agree"] = section_agree(args.workers, probs)
    if not args.quick:
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    main()
