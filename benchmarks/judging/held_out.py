"""Soundness of amplified LeetCodeDataset suites, judged by solutions no stage has seen.

LeetCodeDataset has two solutions per problem: `completion` (A) and the code of `response` (B).
Since B is a reference during amplification, B passing the amplified suite shows nothing. This
benchmark uses a third solution (C) per problem, written for this project without reading A or
B, for a sample of the problems: `benchmarks/data/leetcode_third.jsonl`, one JSON object a line,
`{"task_id", "code"}`, sorted by task id (data, not the project's code; `third_solutions()` reads
it). C runs after the task's `prompt` (its imports and helpers), as the loader puts A and B after it.

- `sample [--sample 2|3]`: the sample's task ids. Sample 1: 160 drawn at random with seed 0, plus
  the 40 problems whose B failed an A-only amplified suite in
  benchmarks/results/amplify_leetcodedataset_full.json. Sample 2: 160 others, drawn with seed 1.
  Sample 3: 100 others again (neither sample 1 nor 2 holds them), drawn with seed 2 after the
  issue-30 changes to batching and amplify's cost, and not tuned on: a fresh check of them.
- `check [ID ...]`: run each C against the problem's original tests (all must pass: a C that
  fails them is not a known-correct solution and is left out of `measure`).
- `measure`: amplify each sampled problem twice, with A alone (the baseline, as before) and with
  A and B (ours), in the same run, and run B and C against both suites. A C that passes the
  original tests and fails an amplified suite is a false failure unless the failing input is a
  valid input on which C is wrong; `measure` prints each failing input for that judgement.

    nice .venv/bin/python benchmarks/judging/held_out.py sample
    nice .venv/bin/python benchmarks/judging/held_out.py check two-sum
    nice .venv/bin/python benchmarks/judging/held_out.py measure [--sample 2|3] [--out benchmarks/results/amplify_held_out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.judging.amplify import FILES, SHARED, load, load_avg  # noqa: E402
from filters.judging.judge_style import comparison_of  # noqa: E402
from filters.judging.judged import judged_problem  # noqa: E402
from filters.sandbox import Sandbox  # noqa: E402
from filters.stages.amplify.stage import AmplifyStage  # noqa: E402

THIRD = REPO / "benchmarks" / "data" / "leetcode_third.jsonl"
EARLIER = REPO / "benchmarks" / "results" / "amplify_leetcodedataset_full.json"
RESULTS = REPO / "benchmarks" / "results" / "amplify_held_out.json"
RANDOM_N, SEED = 160, 0
SAMPLE3_N = 100


def earlier_failures() -> list[str]:
    """Task ids whose B failed the A-only amplified suite in the earlier full run (40 recorded)."""
    d = json.loads(EARLIER.read_text())
    return [e["id"] for e in d["sets"]["leetcodedataset"]["soundness"]["examples"]]


def sample(rows: list[dict[str, Any]], which: int = 1) -> tuple[list[str], list[str]]:
    """(random ids, earlier-failure ids not among them), in file order.

    Sample 1: 160 drawn with seed 0, plus the earlier failures. Sample 2 (drawn after changes
    were made by looking at sample 1's failures, to measure them without that bias): 160 drawn
    with seed 1 from the problems sample 1 does not hold, and no earlier failures. Sample 3 (drawn
    after the issue-30 batching and amplify cost changes, which samples 1 and 2 were used to
    judge; nothing was tuned on it): 100 drawn with seed 2 from the problems neither sample 1
    (drawn or earlier failures) nor sample 2 holds, and no earlier failures.
    """
    ids = [r["id"] for r in rows]
    drawn = set(random.Random(SEED).sample(ids, RANDOM_N))
    failed = set(earlier_failures()) - drawn
    if which in (2, 3):
        rest = [i for i in ids if i not in drawn and i not in failed]
        fresh = set(random.Random(SEED + 1).sample(rest, RANDOM_N))
        if which == 3:
            rest = [i for i in rest if i not in fresh]
            fresh = set(random.Random(SEED + 2).sample(rest, SAMPLE3_N))
        return [i for i in ids if i in fresh], []
    return [i for i in ids if i in drawn], [i for i in ids if i in failed]


def prompts() -> dict[str, str]:
    """Each task's `prompt`: the imports and helpers (`tree_node`, `ListNode`, ...) the dataset
    puts before every solution, the references' as well."""
    import gzip

    with gzip.open(SHARED / FILES["leetcodedataset"], "rt") as f:
        return {d["task_id"]: (d.get("prompt") or "").rstrip("\n") for d in map(json.loads, f)}


PROMPTS: dict[str, str] = {}
THIRD_SOLUTIONS: dict[str, str] = {}


def third_solutions(path: Path = THIRD) -> dict[str, str]:
    """task id -> its third solution C (without the prompt), from the JSONL file."""
    out: dict[str, str] = {}
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            d = json.loads(line)
            if d["task_id"] in out:
                raise ValueError(f"{path}:{n}: task {d['task_id']!r} appears twice")
            out[d["task_id"]] = d["code"]
    return out


def third(task_id: str) -> str | None:
    """C after the task's prompt, as the loader puts each reference after it."""
    if not THIRD_SOLUTIONS:
        THIRD_SOLUTIONS.update(third_solutions())
    code = THIRD_SOLUTIONS.get(task_id)
    if code is None:
        return None
    if not PROMPTS:
        PROMPTS.update(prompts())
    return PROMPTS.get(task_id, "") + "\n\n" + code


def limit_of(r: dict[str, Any]) -> float:
    return float(r.get("time_limit_s") or 2.0)


def cmd_check(rows: dict[str, dict[str, Any]], ids: list[str], sb: Sandbox) -> None:
    bad = 0
    for i in ids:
        code = third(i)
        if code is None:
            print(f"{i}: no third solution in {THIRD}")
            bad += 1
            continue
        r = dict(rows[i], comparison=comparison_of(rows[i]))
        res = sb.run(r, code, time_limit_s=limit_of(r))
        ff = res.first_failure or {}
        print(f"{i}: {res.verdict}" + ("" if res.verdict == "AC" else
              f"  {str(ff.get('reason') or res.error)[:300]}"))  # fmt: skip
        bad += res.verdict != "AC"
    print(f"{len(ids) - bad} of {len(ids)} pass their original tests")


def _fails(sb: Sandbox, suite: dict[str, Any], code: str) -> dict[str, Any] | None:
    """None when `code` passes the amplified suite, else its first failing test."""
    res = sb.run(judged_problem(suite), code, time_limit_s=limit_of(suite))
    if res.verdict == "AC":
        return None
    ff = res.first_failure or {}
    return {"verdict": res.verdict, "input": ff.get("input"), "expected": ff.get("expected"),
            "reason": str(ff.get("reason") or res.error or "")[:300]}  # fmt: skip


def cmd_measure(rows: dict[str, dict[str, Any]], out: Path, workers: int, which: int) -> None:
    drawn, failed = sample(list(rows.values()), which)
    report: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": f"{os.cpu_count()} cpus", "load_start": load_avg(),
    }  # fmt: skip
    with Sandbox(workers) as sb:
        stage = AmplifyStage(sandbox=sb)
        for group, ids in (("random", drawn), ("earlier_failures", failed)):
            res: dict[str, Any] = {"sampled": len(ids), "problems": []}
            secs = {"A": 0.0, "AB": 0.0}
            for i in ids:
                r = dict(rows[i], comparison=comparison_of(rows[i]))
                sols = r["solutions"]
                code_c = third(i)
                row_out: dict[str, Any] = {
                    "id": i,
                    "has_b": len(sols) > 1,
                    "has_c": code_c is not None,
                }
                lim = limit_of(r)
                ok = {k: c is not None and sb.run(r, c, time_limit_s=lim).verdict == "AC"
                      for k, c in (("B", sols[1] if len(sols) > 1 else None), ("C", code_c))}  # fmt: skip
                row_out.update(b_passes_original=ok["B"], c_passes_original=ok["C"])
                for arm, refs in (("A", sols[:1]), ("AB", sols[:2])):
                    t = time.perf_counter()
                    o = stage.amplify(dict(r, solutions=refs))
                    secs[arm] += time.perf_counter() - t
                    gen = o.tests or []
                    row_out[arm] = {"status": o.status, "generated": len(gen), "note": o.note[:200]}
                    if not gen:
                        continue
                    suite = dict(r, generated_tests=gen)
                    for who in ("B", "C"):
                        if ok[who]:
                            code = sols[1] if who == "B" else code_c
                            row_out[arm][f"{who}_fails"] = _fails(sb, suite, code)  # type: ignore[arg-type]
                res["problems"].append(row_out)
                print(json.dumps(row_out)[:400], flush=True)
            res["amplify_s"] = {k: round(v, 1) for k, v in secs.items()}
            res["summary"] = summarize(res["problems"])
            report[group] = res
            print(group, json.dumps(res["summary"]), flush=True)
    report["load_end"] = load_avg()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"written {out}")


def summarize(problems: list[dict[str, Any]]) -> dict[str, Any]:
    """Per arm and held-out solution: problems where it passes the originals and the arm produced
    generated tests, and how many of those it fails."""
    s: dict[str, Any] = {}
    for arm in ("A", "AB"):
        for who in ("B", "C"):
            judged = [p for p in problems if f"{who}_fails" in p.get(arm, {})]
            failing = [p["id"] for p in judged if p[arm][f"{who}_fails"] is not None]
            s[f"{arm}:{who}"] = {"judged": len(judged), "fail": len(failing), "ids": failing}
        s[f"{arm}:amplified"] = sum(p.get(arm, {}).get("generated", 0) > 0 for p in problems)
    return s


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("command", choices=["sample", "check", "measure"])
    ap.add_argument("ids", nargs="*")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--sample", type=int, choices=[1, 2, 3], default=1, help="which sample (see above)"
    )
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    if not (SHARED / FILES["leetcodedataset"]).exists():
        sys.exit(f"{SHARED / FILES['leetcodedataset']} is missing")
    rows = {r["id"]: r for r in load("leetcodedataset", None)}
    if args.command == "sample":
        drawn, failed = sample(list(rows.values()), args.sample)
        print(json.dumps({"random": drawn, "earlier_failures": failed}, indent=1))
    elif args.command == "check":
        ids = args.ids or [i for grp in sample(list(rows.values()), args.sample) for i in grp]
        with Sandbox(args.workers) as sb:
            cmd_check(rows, ids, sb)
    else:
        cmd_measure(rows, Path(args.out), args.workers, args.sample)


if __name__ == "__main__":
    main()
