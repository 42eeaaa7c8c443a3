"""Verify and amplify with references in every language, on the CodeContests problems that have a
hand-written C++ reference (benchmarks/data/codecontests_cpp_refs.json: the shared subset ships
Python only, so these C++ references were written by hand), baseline and ours in one run.

  verify   problems kept with the Python references alone, with Python and C++, and with C++
           alone (the Python ones removed)
  amplify  per problem, `AmplifyStage.amplify` labelled by the Python reference alone against the
           C++ one alone (no mutants in either, so the time is the labelling's: inputs generated,
           run, checked again; the C++ binaries come from the sandbox's cache, filled by the verify
           section: a compile, 0.37 s of CPU, is measured in cpp_sandbox.py), alternating per problem;
           then with both references (they must agree): status, tests added, which labelled
  guided   the C++ references alone, amplified without guiding mutants (before) and guided by
           token mutants of the C++ reference (ours), the same target: tests added, time, and the
           strength of each suite (original + generated) measured by mutants neither run chose:
           AST mutants of the Python reference and C++ token mutants with another seed

Writes benchmarks/results/cpp_amplify.json; prints the load average with each section.

    .venv/bin/python benchmarks/judging/cpp_amplify.py [--workers 2] [--target 20] [--sections verify,amplify,guided]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).parent))

from cpp_sandbox import DATA, TIME_LIMIT_S, problems  # noqa: E402

from curation.record_files import records_to_table  # noqa: E402
from curation.schema import normalize_record  # noqa: E402
from filters.sandbox import Sandbox  # noqa: E402
from filters.settings import AmplifyConfig, VerifyConfig  # noqa: E402
from filters.stages.amplify.stage import AmplifyStage  # noqa: E402
from filters.stages.verify.mutants import mutants_of  # noqa: E402
from filters.stages.verify.stage import VerifyStage  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results" / "cpp_amplify.json"
VARIANTS = {"python_alone": ("python",), "every_language": ("python", "cpp"), "cpp_alone": ("cpp",)}


def load_avg() -> float:
    return round(os.getloadavg()[0], 2)


def record(p: dict[str, Any], langs: tuple[str, ...]) -> dict[str, Any]:
    return normalize_record(
        {
            "id": p["id"],
            "problem_id": p["id"],
            "source": "codecontests-subset",
            "statement": p["id"],
            "test_type": "stdio",
            "tests": p["tests"],
            "time_limit_s": TIME_LIMIT_S,
            "solutions": [p[lang] for lang in langs],
            "solution_languages": list(langs),
        }
    )


def section_verify(sb: Sandbox, probs: list[dict[str, Any]]) -> dict[str, Any]:
    stage = VerifyStage(VerifyConfig(min_tests=5, repeats=2, mutants=4), sandbox=sb)
    out: dict[str, Any] = {}
    for name, langs in VARIANTS.items():
        recs = [record(p, langs) for p in probs]
        t = time.perf_counter()
        result = stage.process(records_to_table(recs))
        out[name] = {
            "kept": result.kept.num_rows,
            "of": len(recs),
            "seconds": round(time.perf_counter() - t, 1),
            "passing_languages": {r["id"]: r["passing_languages"] for r in result.kept.to_pylist()},
        }
    out["load"] = load_avg()
    print(json.dumps({"verify": out}, indent=1))
    return out


def section_amplify(sb: Sandbox, probs: list[dict[str, Any]], target: int) -> dict[str, Any]:
    settings = dict(target_tests=target, rounds=2, candidates=24)
    labelling = AmplifyStage(AmplifyConfig(mutants=0, **settings), sandbox=sb)
    per: dict[str, Any] = {}
    secs: dict[str, list[float]] = {"python": [], "cpp": []}
    for i, p in enumerate(probs):
        row: dict[str, Any] = {}
        order = ("python", "cpp") if i % 2 == 0 else ("cpp", "python")  # the load hits both
        for lang in order:
            t = time.perf_counter()
            o = labelling.amplify(record(p, (lang,)))
            s = time.perf_counter() - t
            row[lang] = {"status": o.status, "added": len(o.tests), "seconds": round(s, 2),
                         "note": o.note}  # fmt: skip
        if row["python"]["status"] == row["cpp"]["status"] == "amplified":
            for lang in secs:
                secs[lang].append(row[lang]["seconds"])
        t = time.perf_counter()
        o = AmplifyStage(AmplifyConfig(mutants=4, **settings), sandbox=sb).amplify(record(p, ("python", "cpp")))
        row["both"] = {"status": o.status, "added": len(o.tests), "labelled_by": o.languages,
                       "seconds": round(time.perf_counter() - t, 2), "note": o.note}  # fmt: skip
        per[p["id"]] = row
        print(p["id"], json.dumps(row), flush=True)
    both = [r["both"] for r in per.values()]
    out = {
        "settings": dict(settings, mutants_in_timing=0, mutants_with_both=4),
        "problems_both_amplified_alone": len(secs["python"]),
        "python_labelling_s_per_problem": _stats(secs["python"]),
        "cpp_labelling_s_per_problem": _stats(secs["cpp"]),
        "ratio_of_medians": (round(statistics.median(secs["python"]) / statistics.median(secs["cpp"]), 2)
                             if secs["cpp"] else None),  # fmt: skip
        "amplified": {lang: sum(r[lang]["status"] == "amplified" for r in per.values())
                      for lang in ("python", "cpp", "both")},  # fmt: skip
        "both_labelled_first_by": {
            lang: sum(1 for b in both if b["labelled_by"][:1] == [lang]) for lang in ("python", "cpp")
        },
        "both_disagreements": sum("references disagree" in b["note"] for b in both),
        "per_problem": per,
        "load": load_avg(),
    }
    print(json.dumps({k: v for k, v in out.items() if k != "per_problem"}, indent=1))
    return out


def _killed(sb: Sandbox, rec: dict[str, Any], tests: list[dict[str, Any]], mutants: list[str],
            lang: str) -> tuple[int, int]:
    """(killed, judged) of `mutants` by the suite `tests`; a mutant that does not compile or that
    the sandbox could not run is not judged."""
    prob = dict(rec, tests=tests)
    runs = sb.run_many([(prob, m, {"language": lang, "time_limit_s": TIME_LIMIT_S,
                                   "stop_on_failure": True}) for m in mutants])  # fmt: skip
    judged = [r for r in runs if r.verdict not in ("CE", "SE")]
    return sum(1 for r in judged if r.verdict != "AC"), len(judged)


def section_guided(sb: Sandbox, probs: list[dict[str, Any]], target: int, n_mutants: int = 10) -> dict[str, Any]:
    settings = dict(target_tests=target, rounds=4, candidates=24)
    arms = {"unguided": AmplifyStage(AmplifyConfig(mutants=0, **settings), sandbox=sb),
            "cpp_guided": AmplifyStage(AmplifyConfig(mutants=n_mutants, cpp_mutants=True, **settings), sandbox=sb)}  # fmt: skip
    per: dict[str, Any] = {}
    for i, p in enumerate(probs):
        rec = record(p, ("cpp",))
        held_py = mutants_of(p["python"], "python", n_mutants, seed=101)
        guiding = set(mutants_of(p["cpp"], "cpp", n_mutants, seed=1))  # amplify's: its seed + 1
        held_cpp = [m for m in mutants_of(p["cpp"], "cpp", 3 * n_mutants, seed=101) if m not in guiding]
        held_cpp = held_cpp[:n_mutants]
        row: dict[str, Any] = {}
        for name in (list(arms) if i % 2 == 0 else list(arms)[::-1]):  # the load hits both
            t = time.perf_counter()
            o = arms[name].amplify(rec)
            secs = time.perf_counter() - t
            suite = list(rec["tests"]) + [{"input": x["input"], "output": x["output"]} for x in o.tests]
            kp, jp = _killed(sb, rec, suite, held_py, "python")
            kc, jc = _killed(sb, rec, suite, held_cpp, "cpp")
            row[name] = {"status": o.status, "added": len(o.tests), "guiding_mutants": o.mutants,
                         "seconds": round(secs, 2), "held_out_python_killed": [kp, jp],
                         "held_out_cpp_killed": [kc, jc]}  # fmt: skip
        per[p["id"]] = row
        print(p["id"], json.dumps(row), flush=True)

    def total(arm: str, key: str) -> list[int]:
        return [sum(r[arm][key][0] for r in per.values()), sum(r[arm][key][1] for r in per.values())]

    out = {
        "settings": dict(settings, guiding_mutants=n_mutants, held_out_mutants=n_mutants, held_out_seed=101),
        "amplified": {a: sum(r[a]["status"] == "amplified" for r in per.values()) for a in arms},
        "added": {a: sum(r[a]["added"] for r in per.values()) for a in arms},
        "seconds": {a: round(sum(r[a]["seconds"] for r in per.values()), 1) for a in arms},
        "held_out_python_killed": {a: total(a, "held_out_python_killed") for a in arms},
        "held_out_cpp_killed": {a: total(a, "held_out_cpp_killed") for a in arms},
        "per_problem": per,
        "load": load_avg(),
    }
    print(json.dumps({k: v for k, v in out.items() if k != "per_problem"}, indent=1))
    return out


def _stats(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {"median": round(statistics.median(values), 2), "mean": round(statistics.mean(values), 2),
            "total": round(sum(values), 1)}  # fmt: skip


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--target", type=int, default=20, help="amplify's target_tests")
    ap.add_argument("--sections", default="verify,amplify")
    args = ap.parse_args(argv)
    if not DATA.exists():
        raise SystemExit(f"no {DATA}")
    probs = problems()
    out: dict[str, Any] = {"machine": f"{os.cpu_count()} CPUs, load {load_avg()} at start",
                           "problems": len(probs), "workers": args.workers}  # fmt: skip
    with Sandbox(workers=args.workers) as sb:
        if "verify" in args.sections:
            out["verify"] = section_verify(sb, probs)
        if "amplify" in args.sections:
            out["amplify"] = section_amplify(sb, probs, args.target)
        if "guided" in args.sections:
            out["guided"] = section_guided(sb, probs, args.target)
    out["load_at_end"] = load_avg()
    RESULTS.parent.mkdir(exist_ok=True)
    path = RESULTS if args.sections == "verify,amplify" else RESULTS.with_name(
        f"cpp_amplify-{args.sections.replace(',', '-')}.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    main()
