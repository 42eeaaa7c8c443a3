"""Every reference solution of the real data in ../shared/data through the sandbox, strict comparison.

Counts AC per set; for the CodeContests subset, classifies the rest by cause (multiple valid
answers, floating point output, interactive, too slow, crash, really wrong) from the statement,
the verdict and the output. Nothing is made to pass by loosening the comparator: the float class
is only *diagnosed* with a looser tolerance. Writes benchmarks/results/verify_realdata.json.

    .venv/bin/python benchmarks/judging/verify_realdata.py [--sets leetcodedataset,mbpp,humaneval,codecontests-subset]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from curation.schema import RecordError, normalize_record
from curation.sources import iter_source
from filters.compare import compare_stdio
from filters.sandbox import RunResult, Sandbox

RESULTS = Path(__file__).resolve().parents[1] / "results" / "verify_realdata.json"
_ANY = re.compile(r"any of them|multiple (possible |valid |correct )?(answers|solutions)|print any|output any|"
                  r"any (valid|correct|possible) (answer|solution)|any such|if there are (several|many|multiple)|"
                  r"in any order|any special order|several (possible )?(answers|solutions)|"
                  r"(answers|solutions)[^.]{0,40}(not unique|several|multiple)",
                  re.IGNORECASE)
_INTERACTIVE = re.compile(r"interactive problem|\bInteraction\b|flush the output", re.IGNORECASE)
_DECIMAL = re.compile(r"\d\.\d")


def classify(problem: dict[str, Any], r: RunResult) -> str:
    """Why a reference solution failed the strict comparator."""
    st = problem.get("statement") or ""
    if _INTERACTIVE.search(st):
        return "interactive"
    if r.verdict == "TLE":
        return "too slow"
    if r.verdict in ("RE", "MLE"):
        tail = (r.first_failure or {}).get("stderr") or ""
        if "RecursionError" in tail or "SIGSEGV" in str((r.first_failure or {}).get("exit")):
            return "crash: deep recursion"
        return "crash: runtime error"
    if r.verdict != "WA":
        return f"other ({r.verdict})"
    ff = r.first_failure or {}
    t = problem["tests"][ff.get("test", 0)]
    actual = ff.get("actual") or ""
    if "more chars]" not in actual:
        if _numbers_close(t["output"], actual):
            return "floats (equal as numbers within 1e-2)"
        if compare_stdio(t["output"].lower(), actual.lower()):
            return "case of YES/NO (judge's checker ignores case)"
    if _ANY.search(st):
        return "multiple valid answers"
    return "really wrong"


def _numbers_close(expected: str, actual: str) -> bool:
    """Same tokens, where a differing pair are both numbers within 1e-2 (diagnosis only)."""
    et, at = expected.split(), actual.split()
    if len(et) != len(at) or not (_DECIMAL.search(expected) or _DECIMAL.search(actual)):
        return False
    for e, a in zip(et, at):
        if e == a:
            continue
        try:
            fe, fa = float(e), float(a)
        except ValueError:
            return False
        if abs(fe - fa) > 1e-2 * max(1.0, abs(fe)):
            return False
    return True


def run_set(sb: Sandbox, name: str) -> dict[str, Any]:
    recs = []
    for r in iter_source(name):
        if isinstance(r, RecordError):
            continue
        try:
            recs.append(normalize_record(r))
        except RecordError:
            pass
    jobs = [(r, r["solutions"][0]) for r in recs if r["solutions"]]
    t = time.perf_counter()
    results = sb.run_many(jobs)
    secs = time.perf_counter() - t
    verdicts = Counter(r.verdict for r in results)
    out: dict[str, Any] = {"problems": len(recs), "judged": len(jobs), "ac": verdicts["AC"],
                           "verdicts": dict(verdicts), "seconds": round(secs, 1),
                           "failing": [(p["id"], r.verdict) for (p, _), r in zip(jobs, results) if r.verdict != "AC"][:50]}
    if name == "codecontests-subset":
        classes = Counter()
        examples: dict[str, list[str]] = {}
        for (p, _), r in zip(jobs, results):
            if r.verdict != "AC":
                c = classify(p, r)
                classes[c] += 1
                examples.setdefault(c, []).append(p["id"])
        out["classes"] = dict(classes)
        out["class_examples"] = {k: v[:8] for k, v in examples.items()}
        out["class_of"] = {pid: c for c, ids in examples.items() for pid in ids}
    return out


def reclassify() -> None:
    """Re-apply the statement rules to the saved classes (no rerun: outputs were already checked)."""
    report = json.loads(RESULTS.read_text())
    cc = report["codecontests-subset"]
    recs = {r["id"]: r for r in iter_source("codecontests-subset") if isinstance(r, dict)}
    for pid, c in list(cc["class_of"].items()):
        st = recs[pid].get("statement") or ""
        if c in ("really wrong", "multiple valid answers"):
            cc["class_of"][pid] = "multiple valid answers" if _ANY.search(st) else "really wrong"
    classes: Counter[str] = Counter(cc["class_of"].values())
    cc["classes"] = dict(classes)
    cc["class_examples"] = {c: [p for p, k in cc["class_of"].items() if k == c][:8] for c in classes}
    RESULTS.write_text(json.dumps(report, indent=2))
    for c, n in classes.most_common():
        print(f"    {c:46} {n:>4}  e.g. {', '.join(cc['class_examples'][c][:3])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="leetcodedataset,mbpp,humaneval,codecontests-subset")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--hash-seed", type=int, default=0)
    ap.add_argument("--reclassify", action="store_true",
                    help="only re-apply the statement rules to the last run's codecontests classes")
    args = ap.parse_args()
    if args.reclassify:
        reclassify()
        return
    report: dict[str, Any] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    with Sandbox(args.workers, hash_seed=args.hash_seed) as sb:
        report["isolation"] = sb.isolation_report()
        for name in args.sets.split(","):
            report[name] = run_set(sb, name)
            r = report[name]
            print(f"{name:22} {r['ac']:>5} AC of {r['judged']:>5}  {r['verdicts']}  {r['seconds']}s", flush=True)
            if "classes" in r:
                for c, n in sorted(r["classes"].items(), key=lambda kv: -kv[1]):
                    print(f"    {c:36} {n:>4}  e.g. {', '.join(r['class_examples'][c][:3])}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2))
    print(f"written {RESULTS}")


if __name__ == "__main__":
    main()
