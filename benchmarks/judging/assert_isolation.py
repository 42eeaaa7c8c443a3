"""Assert suites as call tests: how many convert, whether reference solutions keep their verdict, cost.

For each real set with `assert` tests (HumanEval always; MBPP and LeetCodeDataset from
../shared/data when present): the share of suites that `filters.sandbox.assert_calls` converts,
the first reason for the rest, and every reference solution of a converted problem judged both
ways in the same run (in-process asserts = baseline, converted call tests = ours): verdicts, tests
passed, wall time on the same sandbox. Writes benchmarks/results/assert_isolation.json.

    .venv/bin/python benchmarks/judging/assert_isolation.py [--workers 2]
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections import Counter
from pathlib import Path

from curation.sources.local import convert_humaneval, convert_leetcodedataset, convert_mbpp
from filters.sandbox import Sandbox
from filters.sandbox.assert_calls import convert_problem

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parents[1] / "results" / "assert_isolation.json"
SETS = {
    "HumanEval": (convert_humaneval, ROOT / "filters/data/HumanEval.jsonl.gz"),
    "MBPP": (convert_mbpp, ROOT.parent / "shared/data/mbpp.jsonl.gz"),
    "LeetCodeDataset": (
        convert_leetcodedataset,
        ROOT.parent / "shared/data/LeetCodeDataset-v0.2.0-train.jsonl.gz",
    ),
}


def run_set(name: str, sb: Sandbox) -> dict:
    fn, path = SETS[name]
    with gzip.open(path, "rt", encoding="utf-8") as f:
        recs = [fn(json.loads(line), i) for i, line in enumerate(f)]
    reasons: Counter[str] = Counter()
    pairs = []
    for r in recs:
        conv, why = convert_problem(r)
        if conv is None:
            reasons[(why or "").split(": ", 1)[-1][:60]] += 1
        elif r["solutions"]:
            pairs.append((r, conv, r["solutions"][0]))
    t0 = time.perf_counter()
    base = sb.run_many([(r, code) for r, _, code in pairs])
    t1 = time.perf_counter()
    ours = sb.run_many([(c, code) for _, c, code in pairs])
    t2 = time.perf_counter()
    differ = [
        {"id": r["id"], "in_process": a.verdict, "converted": b.verdict}
        for (r, _, _), a, b in zip(pairs, base, ours)
        if a.verdict != b.verdict
    ]
    return {
        "problems": len(recs),
        "converted": len(recs) - sum(reasons.values()),
        "not_converted_reasons": dict(reasons.most_common()),
        "solutions_judged": len(pairs),
        "ac_in_process": sum(x.verdict == "AC" for x in base),
        "ac_converted": sum(x.verdict == "AC" for x in ours),
        "verdicts_differ": differ,
        "tests_in_process": sum(x.tests_total for x in base),
        "tests_converted": sum(x.tests_total for x in ours),
        "wall_s_in_process": round(t1 - t0, 2),
        "wall_s_converted": round(t2 - t1, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=10.0)
    args = ap.parse_args()
    out: dict = {"workers": args.workers, "time_limit_s": args.time_limit, "sets": {}}
    with Sandbox(workers=args.workers, time_limit_s=args.time_limit) as sb:
        for name, (_, path) in SETS.items():
            if path.exists():
                out["sets"][name] = run_set(name, sb)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(
        f"{'set':<16}{'converted':>14}{'AC in-proc':>12}{'AC conv':>9}{'differ':>8}"
        f"{'s in-proc':>11}{'s conv':>8}{'ratio':>7}"
    )
    for name, s in out["sets"].items():
        ratio = s["wall_s_converted"] / max(s["wall_s_in_process"], 1e-9)
        print(
            f"{name:<16}{s['converted']:>7}/{s['problems']:<6}{s['ac_in_process']:>12}"
            f"{s['ac_converted']:>9}{len(s['verdicts_differ']):>8}{s['wall_s_in_process']:>11}"
            f"{s['wall_s_converted']:>8}{ratio:>6.1f}x"
        )


if __name__ == "__main__":
    main()
