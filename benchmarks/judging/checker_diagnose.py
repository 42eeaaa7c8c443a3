"""Why no standard checker explains a `needs_checker` problem (issue 54): for each problem id,
its reference's outputs on every test against every candidate of verify's choice
(`standard_choice.CANDIDATES`): allowed or not by the evidence, and on how many tests it accepts.

    python benchmarks/judging/checker_diagnose.py --result benchmarks/results/checker_build.json \
        --out benchmarks/results/checker_diagnose.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

from curation.sources import iter_source
from filters.compare import Comparison
from filters.judging.judge_style import comparison_of
from filters.judging.judged import judged_problem
from filters.sandbox import Sandbox
from filters.stages.verify.standard_choice import CANDIDATES, _allowed, accepts
from filters.tools.languages import judged_programs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--result", default="benchmarks/results/checker_build.json")
    ap.add_argument("--out", default="benchmarks/results/checker_diagnose.json")
    a = ap.parse_args()
    ids = set(json.loads(Path(a.result).read_text())["needs_checker_still_dropped"])
    rows = [r for r in iter_source("codecontests-subset") if f"codecontests-subset/{r['id']}" in ids]
    res: dict = {"load": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()}
    with Sandbox(workers=2) as sb:
        for row in rows:
            row = dict(row, comparison=comparison_of(row))
            p = judged_problem(row)
            code, lang = judged_programs(row, 1)[0]
            tests = p["tests"]
            outs = sb.outputs(p, code, [t["input"] for t in tests], time_limit_s=10, language=lang)
            answers = [t["output"] for t in tests]
            stated = Comparison.parse(p.get("comparison")).tolerance
            per = {}
            for name in CANDIDATES:
                ok = sum(o.text is not None and accepts(name, t, o.text) for o, t in zip(outs, answers))
                per[name] = {"allowed": _allowed(name, answers, stated, p.get("statement") or ""),
                             "accepts": f"{ok}/{len(tests)}"}  # fmt: skip
            res[row["id"]] = per
            print(row["id"], {k: (v["allowed"], v["accepts"]) for k, v in per.items()}, flush=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
