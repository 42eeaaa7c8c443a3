"""Two builds of the same source, before and after special judges (issue 54): which problems
each kept, why each dropped the others, and what the kept ones were judged with.

    python benchmarks/judging/checker_build_compare.py BASE_OUT OURS_OUT --out benchmarks/results/checker_build.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq


def rows(out: Path) -> dict[str, dict]:
    got: dict[str, dict] = {}
    for f in sorted((out / "problems").glob("*.parquet")):
        for r in pq.read_table(f).to_pylist():
            got[r["problem_id"]] = {"kept": True, "strength": r.get("test_strength"),
                                    "checker": r.get("checker"), "kind": r.get("checker_kind"),
                                    "choice": r.get("checker_choice")}  # fmt: skip
    for f in sorted((out / "rejected").glob("*.parquet")):
        for r in pq.read_table(f, columns=["problem_id", "reject_reason", "reject_detail"]).to_pylist():
            got[r["problem_id"]] = {"kept": False, "reason": r["reject_reason"],
                                    "detail": r["reject_detail"]}  # fmt: skip
    return got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("ours")
    ap.add_argument("--out")
    a = ap.parse_args()
    base, ours = rows(Path(a.base)), rows(Path(a.ours))
    needs = sorted(p for p, r in base.items() if not r["kept"] and r["reason"] == "needs_checker")
    rescued = {p: ours[p] for p in needs if ours.get(p, {}).get("kept")}
    others = sorted(p for p, r in ours.items() if r["kept"] and not base.get(p, {}).get("kept"))
    lost = sorted(p for p, r in base.items() if r["kept"] and not ours.get(p, {}).get("kept"))
    kept_both = [p for p, r in base.items() if r["kept"] and ours.get(p, {}).get("kept")]
    weaker = sorted(p for p in kept_both if (ours[p]["strength"] or 0) < (base[p]["strength"] or 0))
    res = {
        "base_kept": sum(r["kept"] for r in base.values()),
        "ours_kept": sum(r["kept"] for r in ours.values()),
        "base_reasons": dict(Counter(r.get("reason") for r in base.values() if not r["kept"])),
        "ours_reasons": dict(Counter(r.get("reason") for r in ours.values() if not r["kept"])),
        "needs_checker_before": len(needs),
        "needs_checker_kept_now": {p: {"checker": r["checker"], "choice": r["choice"],
                                       "test_strength": r["strength"]} for p, r in rescued.items()},  # fmt: skip
        "needs_checker_still_dropped": {p: ours.get(p, {}).get("reason") for p in needs if p not in rescued},
        "kept_now_not_before": {p: {"was": base.get(p, {}).get("reason"), "checker": ours[p]["checker"],
                                    "test_strength": ours[p]["strength"]} for p in others},  # fmt: skip
        "kept_before_not_now": {p: ours.get(p, {}).get("reason") for p in lost},
        "kept_both_lower_test_strength": {p: [base[p]["strength"], ours[p]["strength"]] for p in weaker},
        "checker_kinds_kept": dict(Counter((r["kind"], r["checker"] if r["kind"] == "standard" else None)
                                           .__repr__() for r in ours.values() if r["kept"])),  # fmt: skip
    }
    text = json.dumps(res, indent=1)
    if a.out:
        Path(a.out).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
