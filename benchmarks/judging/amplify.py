"""Test amplification on the real data in ../shared/data: yield, strength, soundness, cost.

Baseline and ours run in the same process on the same sandbox:
- yield: `VerifyStage` (build defaults: --min-tests 5, 8 mutants) on each set's problems as they come
  (baseline), and `AmplifyStage` then the same `VerifyStage` (ours); kept counts and reject reasons.
- strength: held-out AST mutants (a seed neither stage uses) of the first passing reference, run
  against the original suite and the amplified one: the share each kills, per source.
- soundness: second correct solutions against the amplified suites. LeetCodeDataset's `response`
  (a model's solution) where it passes the original tests; HumanEval-X's canonical solution against
  HumanEval's suite. A failure is a false failure unless the generated input shows a real bug.
  Since the loader makes `response` a second reference (7268aad), amplification labels with it and
  this check is only a sanity check there; `benchmarks/judging/held_out.py` judges with third solutions.
- strong: CodeContests problems whose reference passes all 10 tests: keep the first 3, amplify,
  and count the held-out mutants killed by the 3, the amplified 3 and the full 10; and run up to
  4 references the stage did not label with (those past its `max_solutions`) that pass the full
  suite against the amplified one: each failure is a false failure.
- cost: seconds per problem of each stage (wall, on `--workers` sandbox workers), with the load;
  `build`: `codemix build` of all five shared files at the defaults with `--skip amplify` and without.

    nice .venv/bin/python benchmarks/judging/amplify.py [--sets mbpp,leetcodedataset,codecontests-subset,humaneval]
        [--offset N] [--limit N] [--nodes-only] [--parts yield,strength,soundness,strong,build] [--workers 2]

Writes benchmarks/results/amplify.json (with the command line) and prints tables.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from curation.schema import RecordError, normalize_record
from curation.sources import iter_source
from filters.contracts import problem_id
from filters.judging.judge_style import comparison_of
from filters.judging.judged import judged_problem
from filters.reward.extract import extract_code
from filters.sandbox import Sandbox
from filters.sandbox.assert_calls import convert_problem
from filters.settings import VerifyConfig
from filters.stage import Decision
from filters.stages.amplify.stage import AmplifyStage
from filters.stages.verify.mutants import generate_mutants
from filters.stages.verify.stage import DEFAULT_MIN_MUTATION_SCORE, VerifyStage

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results" / "amplify.json"
FILES = {
    "mbpp": "mbpp.jsonl.gz",
    "leetcodedataset": "LeetCodeDataset-v0.2.0-train.jsonl.gz",
    "codecontests-subset": "codecontests-subset300.jsonl.gz",
    "humaneval": "HumanEval.jsonl.gz",
    "humaneval-x": "humaneval-x-python.jsonl.gz",
}
HELDOUT_SEED = 90210  # mutants neither verify (seed 0) nor amplify (seed 1) draws
HELDOUT_MUTANTS = 10


def load(name: str, limit: int | None, offset: int = 0) -> list[dict[str, Any]]:
    rows = []
    for i, r in enumerate(iter_source(name, str(SHARED / FILES[name]))):
        if i < offset:
            continue
        if isinstance(r, RecordError):
            continue
        try:
            rec = normalize_record(r)
        except RecordError:
            continue
        rec["problem_id"] = problem_id(rec["source"], rec["id"])
        rows.append(rec)
        if limit is not None and len(rows) >= limit:
            break
    return rows


NODE_HELPERS = ("tree_node(", "list_node(", "is_same_tree(", "is_same_list(")


def uses_nodes(r: dict[str, Any]) -> bool:
    """Whether a problem's tests build trees or linked lists (LeetCodeDataset's helpers)."""
    return any(h in (r.get("test_code") or "") for h in NODE_HELPERS)


def load_avg() -> float:
    return round(os.getloadavg()[0], 2)


def judge(stage: Any, rows: list[dict[str, Any]], batch: int = 64) -> tuple[list[Decision], float]:
    """A stage's decisions on rows, in batches (as the pipeline feeds it), and the wall seconds."""
    t = time.perf_counter()
    out: list[Decision] = []
    for i in range(0, len(rows), batch):
        out.extend(stage.judge_rows(rows[i : i + batch]))
    return out, time.perf_counter() - t


THRESHOLDS = (0.0, 0.25, 0.4, 0.5, 0.6, 0.75)


def _strength(d: Decision) -> float | None:
    return d.columns.get("test_strength")


def _weak(d: Decision, threshold: float) -> bool:
    """Verify's mutation-score rule, applied afterwards (the shared data has no incorrect solutions)."""
    s = _strength(d)
    return d.keep and s is not None and s < threshold


def _kept(decisions: list[Decision], threshold: float) -> int:
    return sum(d.keep and not _weak(d, threshold) for d in decisions)


def reasons(decisions: list[Decision], threshold: float = 0.0) -> dict[str, int]:
    return dict(
        Counter(
            ("weak_tests" if _weak(d, threshold) else "kept") if d.keep else (d.reason or "?")
            for d in decisions
        ).most_common()
    )


# ---- yield and cost ------------------------------------------------------------------------------
def part_yield(
    sb: Sandbox, name: str, rows: list[dict[str, Any]], unamplified: bool = True
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    # the mutation-score threshold is applied afterwards, at several values (`at_threshold`)
    verify = VerifyStage(VerifyConfig(min_tests=5, mutants=8, min_mutation_score=0.0), sandbox=sb)
    amplify = AmplifyStage(sandbox=sb)
    load0 = load_avg()
    # `unamplified`: verify the rows without amplification too (the "baseline" columns)
    base, t_base = judge(verify, rows) if unamplified else ([], 0.0)
    amp, t_amp = judge(amplify, rows)
    amplified = [dict(r, **d.columns) for r, d in zip(rows, amp)]
    ours, t_ver = judge(verify, amplified)
    amplify.close()
    verify.close()
    for r, d in zip(amplified, ours):
        r["_kept"] = d.keep and not _weak(d, DEFAULT_MIN_MUTATION_SCORE)
        r["_reason"] = d.reason
    status = Counter(r["amplify_status"] for r in amplified)
    n = len(rows)
    gen = [len(r["generated_tests"] or []) for r in amplified if r["amplify_status"] == "amplified"]
    notes = Counter(
        _note_kind(r) for r in amplified if r["amplify_status"] in ("skipped", "failed")
    )
    res = {
        "problems": n,
        "baseline": {
            "kept": _kept(base, DEFAULT_MIN_MUTATION_SCORE),
            "reasons": reasons(base, DEFAULT_MIN_MUTATION_SCORE),
            "at_threshold": {str(t): _kept(base, t) for t in THRESHOLDS},
            "strength": _dist([_strength(d) for d in base if d.keep and _strength(d) is not None]),
            "verify_s": round(t_base, 1),
        },
        "ours": {
            "kept": _kept(ours, DEFAULT_MIN_MUTATION_SCORE),
            "reasons": reasons(ours, DEFAULT_MIN_MUTATION_SCORE),
            "at_threshold": {str(t): _kept(ours, t) for t in THRESHOLDS},
            "strength": _dist([_strength(d) for d in ours if d.keep and _strength(d) is not None]),
            "amplify_s": round(t_amp, 1),
            "verify_s": round(t_ver, 1),
        },
        "amplify_status": dict(status),
        "skipped_or_failed_why": dict(notes.most_common(12)),
        "dropped_after": {
            r["id"]: r["_reason"] or "weak_tests" for r in amplified if not r["_kept"]
        },
        "generated_per_amplified": _dist(gen),
        "seconds_per_problem": {
            "baseline_verify": round(t_base / n, 3),
            "amplify": round(t_amp / n, 3),
            "verify_after": round(t_ver / n, 3),
        },
        "load": [load0, load_avg()],
    }
    return res, amplified


def _note_kind(r: dict[str, Any]) -> str:
    note = r["amplify_note"] or ""
    return note.split(":")[0].split("(")[0].strip()[:80]


def _dist(xs: list[float]) -> dict[str, float] | None:
    if not xs:
        return None
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
    return {
        "n": len(xs),
        "mean": round(statistics.fmean(xs), 3),
        "min": xs[0],
        "p25": round(q[0], 3),
        "median": round(q[1], 3),
        "p75": round(q[2], 3),
        "max": xs[-1],
    }


# ---- strength ----------------------------------------------------------------------------------------
def _original(r: dict[str, Any]) -> dict[str, Any] | None:
    """The original suite in the form the amplified one extends (an assert suite converted)."""
    if r["test_type"] == "assert":
        return convert_problem(r)[0]
    return dict(r, generated_tests=[])


def kills(sb: Sandbox, suites: list[dict[str, Any]], code: str, limit: float) -> list[list[bool]]:
    """For each held-out mutant of `code`: killed by each suite? Suites must nest (each a prefix of
    the next), so a mutant killed by one is killed by the next without a run."""
    muts = generate_mutants(code, HELDOUT_MUTANTS, HELDOUT_SEED, suites[0].get("entry_point"))
    out = [[False] * len(suites) for _ in muts]
    alive = list(range(len(muts)))
    done = 0
    for s, suite in enumerate(suites):
        tests = suite["tests"][done:] if s else None
        if s and not tests:
            for i in alive:
                out[i][s] = out[i][s - 1]
            continue
        jobs = [
            (suite, muts[i], {"time_limit_s": limit, "stop_on_failure": True, "tests": tests})
            for i in alive
        ]
        res = sb.run_many(jobs)
        still = []
        for i, r in zip(alive, res):
            if r.verdict not in ("AC", "SE"):
                for k in range(s, len(suites)):
                    out[i][k] = True
            else:
                still.append(i)
        alive = still
        done = len(suite["tests"])
    return out


def part_strength(sb: Sandbox, rows: list[dict[str, Any]]) -> dict[str, Any]:
    before, after, worse = [], [], 0
    for r in rows:
        if r["amplify_status"] not in ("amplified", "not_needed") or not r.get("_kept"):
            continue
        orig, amp = _original(r), judged_problem(r)
        if orig is None:
            continue  # an assert suite that does not convert: amplification never touched it
        limit = r.get("time_limit_s") or 2.0
        k = kills(sb, [orig, amp], r["solutions"][0], float(limit))
        if not k:
            continue
        b = sum(x[0] for x in k) / len(k)
        a = sum(x[1] for x in k) / len(k)
        before.append(b)
        after.append(a)
        worse += a < b
    return {
        "problems": len(before),
        "original": _dist(before),
        "amplified": _dist(after),
        "problems_amplified_kills_more": sum(a > b for a, b in zip(after, before)),
        "problems_amplified_kills_fewer": worse,
    }


# ---- soundness -------------------------------------------------------------------------------------
def part_soundness_leetcode(
    sb: Sandbox, rows: list[dict[str, Any]], raw: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    checked, fails, examples = 0, 0, []
    for r in rows:
        if not r["generated_tests"] or not r.get("_kept"):
            continue
        resp = extract_code((raw.get(r["id"]) or {}).get("response") or "")
        if not resp:
            continue
        prompt = (raw[r["id"]].get("prompt") or "").rstrip("\n")
        code = prompt + "\n\n" + resp
        # judged as verify records it and the rewards read it: with the statement's comparison
        r = dict(r, comparison=comparison_of(r))
        orig = r  # the original suite, as the build judges it (in-process asserts)
        limit = float(r.get("time_limit_s") or 2.0)
        if sb.run(orig, code, time_limit_s=limit).verdict != "AC":
            continue  # not a correct second solution by the original tests
        checked += 1
        res = sb.run(judged_problem(r), code, time_limit_s=limit)
        if res.verdict != "AC":
            fails += 1
            if len(examples) < 40:
                ff = res.first_failure or {}
                examples.append(
                    {
                        "id": r["id"],
                        "verdict": res.verdict,
                        "input": ff.get("input"),
                        "expected": ff.get("expected"),
                        "reason": ff.get("reason"),
                    }
                )
    return {
        "second_solutions_passing_originals": checked,
        "fail_amplified": fails,
        "examples": examples,
    }


def part_soundness_humaneval(
    sb: Sandbox, rows: list[dict[str, Any]], other: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """HumanEval and HumanEval-X: the same task number's canonical solution of the other set."""
    checked, fails, identical = 0, 0, 0
    for r in rows:
        if not r["generated_tests"]:
            continue
        o = other.get(r["id"].split("/")[-1])
        if not o or not o["solutions"]:
            continue
        identical += o["solutions"][0].strip() == r["solutions"][0].strip()
        checked += 1
        fails += sb.run(judged_problem(r), o["solutions"][0], time_limit_s=2.0).verdict != "AC"
    return {"pairs": checked, "identical_code": identical, "fail_amplified": fails}


# ---- strong suites ---------------------------------------------------------------------------------
def part_strong(sb: Sandbox, rows: list[dict[str, Any]], keep: int = 3) -> dict[str, Any]:
    cut = [
        dict(
            r, tests=r["tests"][:keep], generated_tests=None, problem_id=r["problem_id"] + "#first3"
        )
        for r in rows
        if r["test_type"] == "stdio" and len(r["tests"]) >= 10
    ]
    ref = (
        sb.run_many(
            [
                (r, r["solutions"][0])
                for r in rows
                if r["test_type"] == "stdio" and len(r["tests"]) >= 10 and r["solutions"]
            ]
        )
        if cut
        else []
    )
    ok_ids = {
        r["problem_id"]
        for r, x in zip(
            [
                r
                for r in rows
                if r["test_type"] == "stdio" and len(r["tests"]) >= 10 and r["solutions"]
            ],
            ref,
        )
        if x.verdict == "AC"
    }
    cut = [c for c in cut if c["problem_id"].removesuffix("#first3") in ok_ids]
    stage = AmplifyStage(sandbox=sb)
    t = time.perf_counter()
    amp, secs = judge(stage, cut)
    stage.close()
    full_by = {r["problem_id"]: r for r in rows}
    k3 = kamp = kfull = muts = 0
    checked = false_failures = 0
    per = []
    unsound: list[str] = []
    for c, d in zip(cut, amp):
        full = full_by[c["problem_id"].removesuffix("#first3")]
        a = dict(c, **d.columns)
        if a["generated_tests"]:  # soundness: references the stage did not label with
            n, bad = _held_out_references(sb, full, a, stage.settings.max_solutions)
            checked, false_failures = checked + n, false_failures + bad
            if bad:
                unsound.append(full["id"])
        three, amped = judged_problem(dict(c, generated_tests=[])), judged_problem(a)
        limit = float(full.get("time_limit_s") or 2.0)
        k = kills(sb, [three, amped], full["solutions"][0], limit)
        kf = kills(sb, [full], full["solutions"][0], limit)
        muts += len(k)
        n3, na, nf = sum(x[0] for x in k), sum(x[1] for x in k), sum(x[0] for x in kf)
        k3, kamp, kfull = k3 + n3, kamp + na, kfull + nf
        per.append(
            {
                "id": full["id"],
                "mutants": len(k),
                "first3": n3,
                "amplified": na,
                "full": nf,
                "generated": len(a["generated_tests"] or []),
                "status": a["amplify_status"],
            }
        )
    return {
        "problems": len(cut),
        "mutants": muts,
        "killed_first3": k3,
        "killed_amplified": kamp,
        "killed_full": kfull,
        "amplified_vs_full": round(kamp / kfull, 4) if kfull else None,
        "held_out_references_passing_full": checked,
        "held_out_references_failing_amplified": false_failures,
        "problems_with_false_failures": unsound,
        "first3_vs_full": round(k3 / kfull, 4) if kfull else None,
        "amplify_s": round(secs, 1),
        "wall_s": round(time.perf_counter() - t, 1),
        "per_problem": per,
    }


def _held_out_references(
    sb: Sandbox, full: dict[str, Any], amplified: dict[str, Any], used: int, most: int = 4
) -> tuple[int, int]:
    """(references past the `used` ones that label new tests which pass the full suite, those of
    them that fail the amplified suite): each such failure is a false failure."""
    limit = float(full.get("time_limit_s") or 2.0)
    mode = comparison_of(full)
    codes = [x for x in (full.get("solutions") or [])[used:] if isinstance(x, str)][:most]
    ok = [code for code, r in zip(codes, sb.run_many(
        [(dict(full, comparison=mode), code, {"time_limit_s": limit}) for code in codes]
    )) if r.verdict == "AC"]  # fmt: skip
    judged = dict(judged_problem(amplified), comparison=mode)
    res = sb.run_many([(judged, code, {"time_limit_s": limit}) for code in ok])
    return len(ok), sum(r.verdict != "AC" for r in res)


# ---- the whole build ---------------------------------------------------------------------------
BUILD_SOURCES = ["leetcodedataset", "mbpp", "humaneval", "humaneval-x", "codecontests-subset"]


def _build_counts(out: Path) -> dict[str, Any]:
    """Kept problems and reject reasons per source of a finished build."""
    import pyarrow.parquet as pq

    from curation.pipeline import reason_kind

    m = json.loads((out / "manifest.json").read_text())
    per: dict[str, Counter[str]] = {}
    for f in sorted((out / "rejected").glob("*.parquet")):
        t = pq.read_table(f, columns=["source", "reject_stage", "reject_reason"]).to_pylist()
        for r in t:
            per.setdefault(r["source"], Counter())[
                f"{r['reject_stage']}:{reason_kind(r['reject_reason'])}"
            ] += 1
    timing = out / "report" / "timing.json"
    return {"kept": m["counts"]["output"], "input": m["counts"]["input"],
            "stage_s": json.loads(timing.read_text()) if timing.exists() else None,
            "rejected": {k: dict(v.most_common()) for k, v in sorted(per.items())}}  # fmt: skip


def _watch_units(work: Path, seen: dict[str, dict[str, Any]], done: Any) -> None:
    """Copy each finished unit's record (`<stage>/unit-N.json`: seconds, rows kept and dropped by
    source) while the build runs: the build removes its work directory at the end."""
    while True:
        for f in work.glob("*/unit-*.json"):
            key = f"{f.parent.name}/{f.name}"
            if key not in seen:
                try:
                    seen[key] = json.loads(f.read_text())
                except (OSError, ValueError):
                    pass  # being written: read on the next pass
        if done.wait(2.0):
            return


def _seconds_by_source(units: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Stage -> source -> seconds, a unit's seconds shared among its sources by their rows."""
    out: dict[str, dict[str, float]] = {}
    for key, u in units.items():
        stage = key.split("/")[0].split("-", 1)[-1]
        rows = Counter(u.get("kept") or {})
        rows.update(u.get("dropped") or {})
        total = sum(rows.values())
        for src, n in rows.items():
            per = out.setdefault(stage, {})
            per[src] = round(per.get(src, 0.0) + u["seconds"] * n / total, 1)
    return out


def part_build(workers: int, limit: int | None, workdir: Path) -> dict[str, Any]:
    """`codemix build` of the shared data at the defaults, without amplify (before) and with it;
    with the seconds of each stage on each source."""
    import shutil
    import subprocess
    import threading

    out: dict[str, Any] = {}
    for label, extra in (("before", ["--skip", "amplify"]), ("after", [])):
        target = workdir / label
        shutil.rmtree(target, ignore_errors=True)
        cmd = [str(Path(sys.executable).parent / "codemix"), "build", "--out", str(target),
               "--workers", str(workers), *extra]  # fmt: skip
        for name in BUILD_SOURCES:
            cmd += ["--source", f"{name}:{SHARED / FILES[name]}"]
        if limit is not None:
            cmd += ["--limit", str(limit)]
        load0 = load_avg()
        units: dict[str, dict[str, Any]] = {}
        done = threading.Event()
        watcher = threading.Thread(target=_watch_units, args=(target / ".work", units, done))
        watcher.start()
        t = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
        finally:
            done.set()
            watcher.join()
        wall = time.perf_counter() - t
        if proc.returncode != 0:
            raise RuntimeError(f"build failed: {proc.stderr[-2000:]}")
        out[label] = {"command": " ".join(cmd[1:]), "wall_s": round(wall, 1),
                      "load": [load0, load_avg()], **_build_counts(target),
                      "stage_source_s": _seconds_by_source(units)}  # fmt: skip
        print(f"build {label}: {out[label]['wall_s']} s, kept {out[label]['kept']}, "
              f"load {out[label]['load']}", flush=True)  # fmt: skip
    out["thresholds"] = _thresholds(workdir / "after")
    return out


def _thresholds(out: Path) -> dict[str, Any]:
    """Kept problems per source if the mutation-score threshold were another value: kept rows
    carry `test_strength`, rows dropped as weak their `mutation_score`."""
    from curation.store import read_table

    scores: dict[str, list[float]] = {}
    for r in read_table(out, "problems").select(["source", "test_strength"]).to_pylist():
        if r["test_strength"] is not None:
            scores.setdefault(r["source"], []).append(r["test_strength"])
    for r in read_table(out, "rejected").to_pylist():
        if r["reject_reason"] == "weak_tests" and r["reject_detail"]:
            score = json.loads(r["reject_detail"]).get("mutation_score")
            if score is not None:
                scores.setdefault(r["source"], []).append(score)
    return {
        src: {
            "distribution": _dist(xs),
            "kept_at": {str(t): sum(x >= t for x in xs) for t in THRESHOLDS},
        }
        for src, xs in sorted(scores.items())
    }


def kept_rows(out: Path) -> dict[str, list[dict[str, Any]]]:
    """The kept problems of a build, by source, marked as kept."""
    from curation.store import read_table

    by: dict[str, list[dict[str, Any]]] = {}
    for r in read_table(out, "problems").to_pylist():
        r["_kept"] = True
        by.setdefault(r["source"], []).append(r)
    return by


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sets", default="mbpp,leetcodedataset,codecontests-subset,humaneval")
    ap.add_argument("--parts", default="build,strength,soundness,strong")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--offset", type=int, default=0, help="skip the first N rows of each set")
    ap.add_argument("--nodes-only", action="store_true",
                    help="only problems whose tests build trees or linked lists (tree_node, "
                         "list_node, is_same_tree, is_same_list), after --limit")  # fmt: skip
    ap.add_argument("--no-unamplified", action="store_true",
                    help="yield: skip verifying the rows without amplification")  # fmt: skip
    ap.add_argument("--workdir", default=str(REPO / "out" / "amplify-bench"))
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    report: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": f"{os.cpu_count()} cpus",
        "load_start": load_avg(),
        "sets": {},
    }
    built: dict[str, list[dict[str, Any]]] = {}
    if "build" in parts:
        report["build"] = part_build(args.workers, args.limit, Path(args.workdir))
        built = kept_rows(Path(args.workdir) / "after")
    with Sandbox(args.workers) as sb:
        for name in args.sets.split(","):
            entry: dict[str, Any] = {}
            rows = load(name, args.limit, args.offset)
            if args.nodes_only:
                rows = [r for r in rows if uses_nodes(r)]
            if "yield" in parts:  # stage by stage, without a build (quick runs with --limit)
                res, amplified = part_yield(sb, name, rows, not args.no_unamplified)
                entry["yield"] = res
                print(f"{name}: kept {res['baseline']['kept']} -> {res['ours']['kept']} of "
                      f"{res['problems']}; {res['seconds_per_problem']}; load {res['load']}\n"
                      f"    baseline {res['baseline']['reasons']}\n    ours     {res['ours']['reasons']}\n"
                      f"    amplify  {res['amplify_status']} {res['skipped_or_failed_why']}", flush=True)  # fmt: skip
            else:
                amplified = built.get(name, [])
                if name == "humaneval" and not amplified:  # dedup kept the HumanEval-X copy
                    amplified = built.get("humaneval-x", [])
            if "strength" in parts:
                entry["strength"] = part_strength(sb, amplified)
                print(f"{name} strength {entry['strength']}", flush=True)
            if "soundness" in parts and name == "leetcodedataset":
                import gzip

                raw = {}
                with gzip.open(SHARED / FILES[name], "rt") as f:
                    for line in f:
                        d = json.loads(line)
                        raw[d["task_id"]] = d
                entry["soundness"] = part_soundness_leetcode(sb, amplified, raw)
                print(f"{name} soundness {json.dumps(entry['soundness'])[:300]}", flush=True)
            if "soundness" in parts and name == "humaneval":
                mine = {r["source"] for r in amplified}  # the other set's solutions
                other_set = "humaneval" if mine == {"humaneval-x"} else "humaneval-x"
                other = {r["id"].split("/")[-1]: r for r in load(other_set, None)}
                entry["soundness"] = part_soundness_humaneval(sb, amplified, other)
                print(f"{name} soundness {entry['soundness']}", flush=True)
            if "strong" in parts and name == "codecontests-subset":
                entry["strong"] = part_strong(sb, rows)
                s = entry["strong"]
                print(f"{name} strong: {s['problems']} problems, {s['mutants']} mutants; killed by "
                      f"first 3 {s['killed_first3']}, amplified {s['killed_amplified']}, full "
                      f"{s['killed_full']} (amplified/full {s['amplified_vs_full']}); held-out "
                      f"references failing the amplified suite {s['held_out_references_failing_amplified']} "
                      f"of {s['held_out_references_passing_full']}", flush=True)  # fmt: skip
            report["sets"][name] = entry
    report["load_end"] = load_avg()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
