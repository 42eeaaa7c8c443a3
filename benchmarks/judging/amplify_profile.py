"""Where amplify's and verify's time goes, per row: sandbox children and thread-seconds by kind of
program and by verdict (issue 30).

Runs `AmplifyStage` then `VerifyStage` (the settings of `benchmarks/judging/amplify.py`'s yield part:
--min-tests 5, 8 mutants) on one set's rows, with the sandbox's entry points wrapped:

- a *call* is one `Sandbox.run` or `Sandbox.outputs` (a worker held by one thread for its length:
  its wall seconds are thread-seconds);
- a *child* is one program run the worker forks (`WorkerProcess.call(Op.RUN)`: a test, a batch
  of calls, a checker's check, a C++ compile).

Kinds, amplify: `reference` (the references on the original tests), `mutant` (the guiding mutants,
on the originals and on each round's new tests), `shapes` (the labeller on the originals, for the
types it returns), `label` (the labeller on the candidates), `label_rerun` (its rerun under the
next hash seed), `label_check` (the other references on the labels). Verify: `reference` (first
pass), `rerun_failed` (failing references under the next hash seed), `repeat` (passing references
rerun), `incorrect` (known-incorrect solutions), `mutant`.

    nice .venv/bin/python benchmarks/judging/amplify_profile.py --set leetcodedataset --offset 400 --limit 100
        [--workers 1] [--out benchmarks/results/amplify_profile_lcd400.json]

Prints a table per stage and writes the JSON report.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from amplify import judge, load  # noqa: E402  (benchmarks/judging/amplify.py)

from filters.sandbox import Sandbox  # noqa: E402
from filters.sandbox.process import WorkerProcess  # noqa: E402
from filters.sandbox.worker.wire import Op  # noqa: E402
from filters.settings import VerifyConfig  # noqa: E402
from filters.stages.amplify.stage import AmplifyStage  # noqa: E402
from filters.stages.verify.stage import VerifyStage  # noqa: E402

_tl = threading.local()
_lock = threading.Lock()


class Tally:
    """calls, children, thread-seconds per (stage, kind) and per (stage, kind, verdict)."""

    def __init__(self) -> None:
        self.stage = "?"
        self.phase = ""  # verify's phase, set around its methods (they run one after another)
        self.refs: set[str] = set()
        self.wrong: set[str] = set()
        self.by_kind: dict[tuple[str, str], dict[str, float]] = defaultdict(
            lambda: {"calls": 0, "children": 0, "tests": 0, "thread_s": 0.0}
        )
        self.by_verdict: dict[tuple[str, str, str], dict[str, float]] = defaultdict(
            lambda: {"calls": 0, "children": 0, "thread_s": 0.0}
        )

    def add(self, kind: str, verdict: str, children: int, tests: int, seconds: float) -> None:
        with _lock:
            k = self.by_kind[(self.stage, kind)]
            k["calls"] += 1
            k["children"] += children
            k["tests"] += tests
            k["thread_s"] += seconds
            v = self.by_verdict[(self.stage, kind, verdict)]
            v["calls"] += 1
            v["children"] += children
            v["thread_s"] += seconds


T = Tally()


def _kind_of_run(sb: Sandbox, code: str, kwargs: dict[str, Any]) -> str:
    if T.stage == "verify":
        if T.phase == "strength":
            return "incorrect" if code in T.wrong else "mutant"
        return T.phase
    if code not in T.refs:
        return "mutant"
    if kwargs.get("tests") is None:
        return "reference"
    return "label_rerun" if sb.hash_seed != 0 else "label_check"


def install() -> None:
    orig_run, orig_outputs, orig_call = Sandbox.run, Sandbox.outputs, WorkerProcess.call

    def call(self: WorkerProcess, op: str, body: Any, timeout: float) -> Any:
        if op == Op.RUN:
            _tl.children = getattr(_tl, "children", 0) + 1
        return orig_call(self, op, body, timeout)

    def run(self: Sandbox, problem: dict[str, Any], code: str, **kw: Any) -> Any:
        kind = _kind_of_run(self, code, kw)
        _tl.children = 0
        t = time.perf_counter()
        res = orig_run(self, problem, code, **kw)
        T.add(kind, res.verdict, _tl.children, len(res.tests), time.perf_counter() - t)
        return res

    def outputs(self: Sandbox, problem: dict[str, Any], code: str, inputs: Any, **kw: Any) -> Any:
        kind = "shapes" if getattr(_tl, "shapes", False) else "label"
        _tl.children = 0
        t = time.perf_counter()
        res = orig_outputs(self, problem, code, inputs, **kw)
        worst = "OK" if all(o.status == "OK" for o in res) else "some_failed"
        T.add(kind, worst, _tl.children, len(res), time.perf_counter() - t)
        return res

    orig_shapes = AmplifyStage._shapes

    def shapes(self: AmplifyStage, *a: Any, **kw: Any) -> Any:
        _tl.shapes = True
        try:
            return orig_shapes(self, *a, **kw)
        finally:
            _tl.shapes = False

    def phase(name: str, method: Any) -> Any:
        def wrapped(self: VerifyStage, *a: Any, **kw: Any) -> Any:
            T.phase = name
            try:
                return method(self, *a, **kw)
            finally:
                T.phase = ""

        return wrapped

    Sandbox.run = run  # type: ignore[method-assign]
    Sandbox.outputs = outputs  # type: ignore[method-assign]
    WorkerProcess.call = call  # type: ignore[method-assign]
    AmplifyStage._shapes = shapes  # type: ignore[method-assign]
    VerifyStage._first_pass = phase("reference", VerifyStage._first_pass)  # type: ignore[method-assign]
    VerifyStage._recheck_failures = phase("rerun_failed", VerifyStage._recheck_failures)  # type: ignore[method-assign]
    VerifyStage._repeat = phase("repeat", VerifyStage._repeat)  # type: ignore[method-assign]
    VerifyStage._strength = phase("strength", VerifyStage._strength)  # type: ignore[method-assign]


def table(stage: str, rows: int, wall: float) -> dict[str, Any]:
    kinds = {k: v for (s, k), v in T.by_kind.items() if s == stage}
    total_s = sum(v["thread_s"] for v in kinds.values())
    total_c = sum(v["children"] for v in kinds.values())
    out: dict[str, Any] = {
        "wall_s": round(wall, 1),
        "s_per_row": round(wall / rows, 3),
        "children": int(total_c),
        "children_per_row": round(total_c / rows, 1),
        "thread_s": round(total_s, 1),
        "kinds": {},
    }
    for kind, v in sorted(kinds.items(), key=lambda kv: -kv[1]["thread_s"]):
        verdicts = {
            vd: {"calls": int(x["calls"]), "children": int(x["children"]),
                 "thread_s": round(x["thread_s"], 1)}
            for (s, k, vd), x in sorted(T.by_verdict.items(), key=lambda kv: -kv[1]["thread_s"])
            if s == stage and k == kind
        }  # fmt: skip
        out["kinds"][kind] = {
            "calls": int(v["calls"]),
            "children": int(v["children"]),
            "tests": int(v["tests"]),
            "thread_s": round(v["thread_s"], 1),
            "share": round(v["thread_s"] / total_s, 3) if total_s else None,
            "ms_per_child": round(1000 * v["thread_s"] / v["children"], 1) if v["children"] else None,
            "by_verdict": verdicts,
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--set", default="leetcodedataset")
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    rows = load(args.set, args.limit, args.offset)
    for r in rows:
        T.refs.update(r.get("solutions") or [])
        T.wrong.update(r.get("incorrect_solutions") or [])
    install()
    load0 = round(os.getloadavg()[0], 2)
    with Sandbox(args.workers) as sb:
        amplify = AmplifyStage(sandbox=sb)
        verify = VerifyStage(VerifyConfig(min_tests=5, mutants=8, min_mutation_score=0.0), sandbox=sb)
        T.stage = "amplify"
        amp, t_amp = judge(amplify, rows)
        amplified = [dict(r, **d.columns) for r, d in zip(rows, amp)]
        T.stage = "verify"
        ver, t_ver = judge(verify, amplified)
        amplify.close()
        verify.close()
    n = len(rows)
    report = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": f"{os.cpu_count()} cpus",
        "rows": n,
        "workers": args.workers,
        "load": [load0, round(os.getloadavg()[0], 2)],
        "kept": sum(d.keep for d in ver),
        "amplify": table("amplify", n, t_amp),
        "verify": table("verify", n, t_ver),
        "tests_per_row_after_amplify": round(
            sum(len(r.get("tests") or []) + len(r.get("generated_tests") or []) for r in amplified) / n, 2
        ),
    }  # fmt: skip
    for stage in ("amplify", "verify"):
        s = report[stage]
        print(f"{stage}: {s['s_per_row']} s/row, {s['children_per_row']} children/row, "
              f"{s['thread_s']} thread-s")  # fmt: skip
        for kind, v in s["kinds"].items():
            print(f"  {kind:12} {v['calls']:5} calls {v['children']:6} children "
                  f"{v['thread_s']:7.1f} s ({v['share']}) {v['ms_per_child']} ms/child  "
                  + ", ".join(f"{vd} {x['thread_s']}s/{x['calls']}" for vd, x in v["by_verdict"].items()))  # fmt: skip
    print(f"kept {report['kept']} of {n}; load {report['load']}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1))
        print(f"written {args.out}")


if __name__ == "__main__":
    main()
