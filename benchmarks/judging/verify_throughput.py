"""Sandbox throughput and per-program cost against a fresh `python` process per run, in one run.

Sections (each prints its numbers and the load average; `--sections` picks some):
  floor     a bare fork + _exit + waitpid of a process the size of a worker (the physical limit)
  overhead  a one-test program (`print(1)`), one worker, one after the other: wall ms, and the
            CPU the harness spends on it; a trivial test inside a 400-test program; a fresh
            interpreter per test for comparison; the floor beside it
  cc, lc    CodeContests (stdio, per test) and LeetCodeDataset (assert, per check run): the same
            reference solutions through (a) one fresh `python` per unit (`subprocess.run`, stdin from
            a file, same hash seed, same strict comparator, same parallelism) and (b) the sandbox;
            units/s, ratio, verdict agreement
  reward    distinct one-test completions through `filters.reward.grade_many` (extraction, sandbox,
            comparison) against extraction + a fresh `python -S` per completion (with the `exit`
            and `quit` builtins that -S drops) + the same comparison, with the same parallelism;
            ms per completion, ratio, agreement. Short completions of one problem (the harness's
            own cost); `reward_cc`: CodeContests reference solutions (their compute included)
  step      the 1,024-completion CodeContests step of `benchmarks/judging/speed_reward.py` through
            `grade_many`: completions/s, and per worker (one worker per core)
  leaks     many runs, some hostile: the parent's fds, threads and children must not grow

`--before PATH` runs every section twice in the same run, alternating, once against the code at
PATH (another checkout, e.g. `git archive <commit> | tar -x -C PATH`) and once against this one,
each in a fresh process, and prints both with their ratio. Writes
benchmarks/results/verify_throughput.json.

    .venv/bin/python benchmarks/judging/verify_throughput.py [--cc 100] [--lc 100] [--workers 2]
        [--reward 400] [--step 1024] [--leak-runs 2000] [--before /tmp/old-checkout]
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

REPO = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parents[1] / "results" / "verify_throughput.json"
SECTIONS = ("floor", "overhead", "cc", "lc", "reward", "reward_cc", "step", "leaks")
TIME_LIMIT_S = 10.0
#: The baseline's environment: the same fixed hash seed as the sandbox, so verdicts can agree.
BASE_ENV = {**os.environ, "PYTHONHASHSEED": "0"}


def load_avg() -> float:
    return round(os.getloadavg()[0], 2)


def load(name: str, n: int) -> list[dict[str, Any]]:
    from curation.schema import RecordError, normalize_record
    from curation.sources import iter_source

    out = []
    for r in iter_source(name, limit=n):
        if not isinstance(r, RecordError):
            try:
                out.append(normalize_record(r))
            except RecordError:
                pass
    return out


#: `python -S` skips `site`, and with it the `exit` and `quit` builtins that programs call (a
#: plain `python prog.py`, and the sandbox, have them): this prelude adds just those two, then
#: runs the program as `__main__`, so verdicts can agree.
NO_SITE = (
    "-S",
    "-c",
    "import builtins, sys, _sitebuiltins as s\n"
    "builtins.exit, builtins.quit = s.Quitter('exit', 'Ctrl-D'), s.Quitter('quit', 'Ctrl-D')\n"
    "p = sys.argv[1]; sys.argv = sys.argv[1:]; sys.path[0] = p.rpartition('/')[0]\n"
    "exec(compile(open(p).read(), p, 'exec'), {'__name__': '__main__', '__file__': p})\n",
)


def baseline_one(
    prog: Path, stdin: str, expected: str | None, flags: tuple[str, ...] = ()
) -> tuple[str, float]:
    """One fresh interpreter: the verdict and its wall ms."""
    from filters.compare import compare_stdio

    t = time.perf_counter()
    infile = prog.parent / f"in{threading.get_ident()}.txt"
    infile.write_text(stdin)  # stdin is a file, as on a judge (os.fstat(0).st_size works)
    try:
        with open(infile, "rb") as f:
            p = subprocess.run(
                [sys.executable, *flags, str(prog)],
                stdin=f,
                capture_output=True,
                timeout=TIME_LIMIT_S * 3,
                cwd=prog.parent,
                env=BASE_ENV,
            )
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
            call = f"\ncheck({p['entry_point']})\n" if "def check" in p["test_code"] else ""
            prog.write_text(p["solutions"][0] + "\n\n" + p["test_code"] + call)
            units.append((prog, "", None))
    return units


def floor(n: int = 300) -> dict[str, Any]:
    """A bare fork + _exit + waitpid from a process holding the worker's modules (its size)."""
    import filters.sandbox

    code = (
        "import gc, os, sys, time\n"
        f"sys.path.insert(0, {str(Path(filters.sandbox.__file__).parent / 'worker')!r})\n"
        "sys.argv = ['main.py', '1']\n"
        "import main\n"
        "gc.freeze()\n"
        "def once():\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os._exit(0)\n"
        "    os.waitpid(pid, 0)\n"
        "for _ in range(20):\n"
        "    once()\n"
        "t = time.perf_counter()\n"
        f"for _ in range({n}):\n"
        "    once()\n"
        f"ms = (time.perf_counter() - t) * 1000 / {n}\n"
        "rss = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmRSS')][0]\n"
        "print(ms, int(rss) // 1024)\n"
    )
    out = subprocess.run([sys.executable, "-s", "-B", "-c", code], capture_output=True, text=True)
    ms, mb = out.stdout.split()
    return {"fork_and_reap_ms": round(float(ms), 3), "process_mb": int(mb), "load": load_avg()}


def _children_cpu_s() -> float:
    """CPU of this process's reaped children: a closed sandbox's workers and all they forked."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def overhead(n: int = 400) -> dict[str, Any]:
    """A one-test program's cost, and a trivial test's, against a fresh interpreter per test."""
    from filters.sandbox import Sandbox

    trivial = {"test_type": "stdio", "tests": [{"input": "", "output": "1"}] * n}
    one = {"test_type": "stdio", "tests": trivial["tests"][:1]}
    load0 = load_avg()
    with tempfile.TemporaryDirectory() as tmp:
        prog = Path(tmp) / "prog.py"
        prog.write_text("print(1)")
        t = time.perf_counter()
        for _ in range(n // 4):
            baseline_one(prog, "", "1")
        base_ms = (time.perf_counter() - t) * 1000 / (n // 4)

    def pool(programs: int) -> tuple[float, float, float]:
        """(workers' CPU s, our CPU s, wall ms per program) of a one-worker pool's whole life."""
        c0, p0 = _children_cpu_s(), time.process_time()
        with Sandbox(1) as sb:
            for _ in range(10):
                sb.run(one, "print(1)")
            t = time.perf_counter()
            for _ in range(programs):
                assert sb.run(one, "print(1)").verdict == "AC"
            wall = (time.perf_counter() - t) * 1000 / max(1, programs)
        return _children_cpu_s() - c0, time.process_time() - p0, wall

    # the programs' share: a pool that ran them, less one that only started and warmed up
    w_run, p_run, program_ms = pool(n)
    w_idle, p_idle, _ = pool(0)
    with Sandbox(1) as sb:
        sb.run(one, "print(1)")
        t = time.perf_counter()
        r = sb.run(trivial, "print(1)")
        test_ms = (time.perf_counter() - t) * 1000 / n
    assert r.verdict == "AC"
    return {
        "fresh_interpreter_ms_per_test": round(base_ms, 2),
        "one_test_program_ms": round(program_ms, 2),
        "ratio": round(base_ms / program_ms, 1),
        # CPU per one-test program, whatever the machine's load: the worker (server and the
        # run's child) and this process (the sandbox's side)
        "one_test_program_cpu_ms": {
            "workers": round((w_run - w_idle) * 1000 / n, 2),
            "parent": round((p_run - p_idle) * 1000 / n, 2),
        },
        "trivial_test_in_400_test_program_ms": round(test_ms, 2),
        "load": [load0, load_avg()],
    }


def sets(name: str, n: int, workers: int) -> dict[str, Any]:
    """A problem set's reference solutions: a fresh interpreter per unit against the sandbox."""
    from filters.sandbox import Sandbox

    label = {"codecontests-subset": "stdio, per test", "leetcodedataset": "assert, per run"}[name]
    problems = load(name, n)
    load0 = load_avg()
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
    ours: list[str] = []  # per-unit verdicts in the same order as the baseline units
    for p, r in zip(problems, res):
        if p["test_type"] == "stdio":
            ours += [t.verdict for t in r.tests] + ["-"] * (len(p["tests"]) - len(r.tests))
        else:
            ours.append(r.verdict)
    base_v = [v for v, _ in base]
    k = len(units)
    return {
        "set": f"{name} ({label})",
        "problems": len(problems),
        "units": k,
        "baseline_units_per_s": round(k / base_s, 1),
        "ours_units_per_s": round(k / ours_s, 1),
        "ratio": round(base_s / ours_s, 2),
        "agree": sum(a == b for a, b in zip(base_v, ours)),
        "disagree": [(i, a, b) for i, (a, b) in enumerate(zip(base_v, ours)) if a != b][:10],
        "ours_ac_units": sum(v == "AC" for v in ours),
        "load": [load0, load_avg()],
    }


#: Short completions of one problem (A + B), as a policy writes them: the harness's cost per
#: completion, which is what a GRPO step of short programs pays (three right, one wrong in four).
SUM_PROBLEM = {"test_type": "stdio", "tests": [{"input": "3 4\n", "output": "7\n"}]}
SUM_COMPLETIONS = [
    "a, b = map(int, input().split())\nprint(a + b)",
    "import sys\nprint(sum(map(int, sys.stdin.read().split())))",
    "x = input().split()\nprint(int(x[0]) + int(x[1]))",
    "a, b = map(int, input().split())\nprint(a - b)",
]


def reward(n: int, workers: int, real: bool) -> dict[str, Any]:
    """Distinct one-test completions: the whole reward path against a fresh `python -S` each.
    `real`: CodeContests problems (their first test) and reference solutions, whose own compute
    both sides pay; else short completions of one problem (the harness's cost alone)."""
    from filters.reward import extract_code, grade_many
    from filters.sandbox import Sandbox

    items = []
    if real:
        problems = [
            dict(p, tests=p["tests"][:1]) for p in load("codecontests-subset", max(2, n // 4))
        ]
        for i in range(n):  # three correct completions per problem, then another problem's solution
            p = problems[(i // 4) % len(problems)]
            sol = p if i % 4 != 3 else problems[(i // 4 + 1) % len(problems)]
            items.append(
                (p, f"Here you go.\n```python\n{sol['solutions'][0]}\n# completion {i}\n```")
            )
    else:
        for i in range(n):
            code = SUM_COMPLETIONS[i % 4]
            items.append((SUM_PROBLEM, f"Here you go.\n```python\n{code}\n# completion {i}\n```"))
    load0 = load_avg()
    with tempfile.TemporaryDirectory() as tmp:

        def fresh(k: int) -> str:
            p, text = items[k]
            prog = Path(tmp) / f"c{k}.py"
            prog.write_text(extract_code(text) or "")
            return baseline_one(prog, p["tests"][0]["input"], p["tests"][0]["output"], NO_SITE)[0]

        t = time.perf_counter()
        with ThreadPoolExecutor(workers) as ex:
            base = list(ex.map(fresh, range(n)))
        base_s = time.perf_counter() - t
    with Sandbox(workers, time_limit_s=TIME_LIMIT_S) as sb:
        grade_many(items[:workers], sandbox=sb, on_system_error="none")  # workers warm
        t = time.perf_counter()
        grades = grade_many(items, sandbox=sb, on_system_error="none")
        ours_s = time.perf_counter() - t
    agree = sum((b == "AC") == bool(g.accepted) for b, g in zip(base, grades))
    return {
        "completions": n,
        "programs": "CodeContests reference solutions" if real else "short A + B completions",
        "workers": workers,
        "fresh_python_S_ms_per_completion": round(base_s * 1000 / n, 2),
        "grade_many_ms_per_completion": round(ours_s * 1000 / n, 2),
        "ratio": round(base_s / ours_s, 2),
        "agree": agree,
        "accepted": sum(g.accepted for g in grades),
        "load": [load0, load_avg()],
    }


def step(total: int, workers: int) -> dict[str, Any]:
    """The 1,024-completion CodeContests step of speed_reward.py, through grade_many."""
    sys.path.insert(0, str(Path(__file__).parent))
    import speed_reward

    from filters.sandbox import Sandbox

    load0 = load_avg()
    with Sandbox(workers) as sb:
        res = speed_reward.throughput(sb, total)
    if "skipped" in res:
        return res
    return {
        "completions": res["completions"],
        "seconds": round(res["seconds"], 2),
        "per_second": round(res["per_second"], 2),
        "per_second_per_worker": round(res["per_second"] / workers, 2),
        "verdicts": res["verdicts"],
        "load": [load0, load_avg()],
    }


def leak_check(runs: int, workers: int) -> dict[str, Any]:
    """Many runs, some hostile: the parent's fds, threads and children must not grow."""
    from filters.sandbox import Sandbox

    p = {"test_type": "stdio", "tests": [{"input": "", "output": "1"}]}
    codes = [
        "print(1)",
        "import os\nos._exit(1)",
        "import os\nif os.fork() == 0:\n    import time; time.sleep(60)\nprint(1)",
        "raise SystemExit(3)",
    ]

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
    return {
        "runs": runs,
        "seconds": round(secs, 1),
        "fds_before_after": [before[0], after[0]],
        "children_before_after": [before[1], after[1]],
        "threads_before_after": [before[2], after[2]],
        "leak_free": before == after,
    }


def run_section(name: str, args: argparse.Namespace) -> dict[str, Any]:
    if name == "floor":
        return floor()
    if name == "overhead":
        return overhead()
    if name == "cc":
        return sets("codecontests-subset", args.cc, args.workers)
    if name == "lc":
        return sets("leetcodedataset", args.lc, args.workers)
    if name in ("reward", "reward_cc"):
        return reward(args.reward, args.workers, real=name == "reward_cc")
    if name == "step":
        return step(args.step, args.workers)
    return leak_check(args.leak_runs, args.workers)


def in_fresh_process(name: str, tree: Path, argv: list[str]) -> dict[str, Any]:
    """One section, run by this script in a fresh interpreter against the code in `tree`."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    data = REPO.parent / "shared" / "data"
    if "CODEMIX_DATA" not in env and data.is_dir():
        env["CODEMIX_DATA"] = str(data)  # a checkout elsewhere looks for ../shared from itself
    out = subprocess.run(
        [sys.executable, __file__, *argv, "--sections", name, "--section-json"],
        env=env,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    if out.returncode != 0:
        raise RuntimeError(f"section {name} against {tree} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def summary(res: dict[str, Any], tag: str = "") -> None:
    s = res.get
    if s("floor"):
        f = res["floor"]
        print(
            f"{tag}floor: fork + exit + reap of a {f['process_mb']} MB worker-sized process: {f['fork_and_reap_ms']} ms"
        )
    if s("overhead"):
        o = res["overhead"]
        floor_ms = (res.get("floor") or {}).get("fork_and_reap_ms")
        vs = f" ({o['one_test_program_ms'] / floor_ms:.1f}x the floor)" if floor_ms else ""
        print(
            f"{tag}one-test program: {o['one_test_program_ms']} ms{vs}, fresh interpreter "
            f"{o['fresh_interpreter_ms_per_test']} ms ({o['ratio']}x); CPU {o['one_test_program_cpu_ms']}; "
            f"trivial test in a 400-test program {o['trivial_test_in_400_test_program_ms']} ms; load {o['load']}"
        )
    for key in ("cc", "lc"):
        if s(key):
            r = res[key]
            print(
                f"{tag}{r['set']}: {r['units']} units, baseline {r['baseline_units_per_s']}/s, ours "
                f"{r['ours_units_per_s']}/s, {r['ratio']}x, same verdict {r['agree']}/{r['units']}; load {r['load']}"
            )
    for key in ("reward", "reward_cc"):
        if s(key):
            r = res[key]
            print(
                f"{tag}grade_many, {r['completions']} one-test completions ({r['programs']}) on "
                f"{r['workers']} workers: {r['grade_many_ms_per_completion']} ms against a fresh python -S "
                f"{r['fresh_python_S_ms_per_completion']} ms ({r['ratio']}x), same verdict {r['agree']}/{r['completions']}; load {r['load']}"
            )
    if s("step") and "per_second" in res["step"]:
        r = res["step"]
        print(
            f"{tag}step of {r['completions']} completions: {r['per_second']}/s, "
            f"{r['per_second_per_worker']}/s per worker; load {r['load']}"
        )
    if s("leaks"):
        print(f"{tag}leak check: {res['leaks']}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--cc", type=int, default=100, help="CodeContests-subset problems (stdio)")
    ap.add_argument("--lc", type=int, default=100, help="LeetCodeDataset problems (assert)")
    ap.add_argument("--reward", type=int, default=400, help="one-test completions for grade_many")
    ap.add_argument("--step", type=int, default=1024, help="completions in the CodeContests step")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--leak-runs", type=int, default=2000)
    ap.add_argument(
        "--sections", default=",".join(SECTIONS), help="comma-separated, of " + ", ".join(SECTIONS)
    )
    ap.add_argument("--before", type=Path, help="another checkout to measure in the same run")
    ap.add_argument("--section-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    names = [s for s in args.sections.split(",") if s]
    if args.section_json:  # one section in this process, for a parent run
        print(json.dumps(run_section(names[0], args)))
        return
    argv = [
        f"--cc={args.cc}",
        f"--lc={args.lc}",
        f"--reward={args.reward}",
        f"--step={args.step}",
        f"--workers={args.workers}",
        f"--leak-runs={args.leak_runs}",
    ]
    out: dict[str, Any] = {
        "command": " ".join(
            [Path(sys.executable).name, "benchmarks/judging/verify_throughput.py", *sys.argv[1:]]
        ),
        "machine": f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}",
        "workers": args.workers,
        "load_at_start": list(os.getloadavg()),
        "ours": {},
    }
    if args.before:
        out["before"] = {}
        out["before_tree"] = str(args.before)
    for i, name in enumerate(names):
        trees = [("ours", REPO)] + ([("before", args.before)] if args.before else [])
        if i % 2:
            trees.reverse()  # alternate who goes first, so a change in load favours neither
        for tag, tree in trees:
            out[tag][name] = in_fresh_process(name, tree, argv)
            summary(
                {name: out[tag][name], "floor": out[tag].get("floor")}
                if name == "overhead"
                else {name: out[tag][name]},
                f"[{tag}] ",
            )
            sys.stdout.flush()
    out["load_at_end"] = list(os.getloadavg())
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print()
    for tag in ("before", "ours"):
        if tag in out:
            print(f"--- {tag}" + (f" ({out['before_tree']})" if tag == "before" else ""))
            summary(out[tag])
    print(
        f"load average {out['load_at_start'][0]:.1f} at start, {out['load_at_end'][0]:.1f} at end; written {RESULTS}"
    )


if __name__ == "__main__":
    main()
