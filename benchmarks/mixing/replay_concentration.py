"""Read generated-replay results (benchmarks/mixing/sampling_replay.py) for the draw rules: per arm
the gap to the oracle (informative groups a rollout), the held-out target's gain over the run
(`held_out_gain`), and how concentrated the draws are (problems drawn at all, as a share of the
pool; the share of the draws on the most-drawn tenth of the pool, as B3 v2's paired.py reads
them), and each arm against a reference arm, paired per scenario (mean over its run seeds), mean ±
standard error over the scenarios, by kind of scenario (benchmarks/pages/mixing-generated.md,
"Development, seventh round: a cost for concentration").

    python benchmarks/mixing/replay_concentration.py results_a.json [results_b.json ...] \\
        --versus stack [--out summary.json]

Several files (or a run's `<out>.partial.jsonl`) are read together (the same scenario, arm and run seed once: the first file's run).
Gaps are clipped to ±2 per run seed (a scenario whose oracle is barely above uniform would decide
the mean otherwise), as the sixth round's probes did.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import sampling_replay as replay  # noqa: E402

CLIP = 2.0


def kind_of(scenario: str) -> str:
    """'learns and hurts', 'contradicting', 'noise only' or 'neither' (the page's kinds)."""
    w = replay.make_world(scenario, 1, 0)
    spec = getattr(w, "spec", {})
    if w.harmful is not None:
        return "learns and hurts" if spec.get("harm") == "hacks" else "contradicting"
    return "noise only" if spec.get("noise") else "neither"


def _ms(x: np.ndarray) -> list[float]:
    se = float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else 0.0
    return [round(float(x.mean()), 4), round(se, 4), int((x > 0).sum()), int((x < 0).sum())]


def read(runs: list[dict[str, Any]], versus: str) -> dict[str, Any]:
    by: dict[tuple[str, str, int], dict[str, Any]] = {}
    for r in runs:
        by.setdefault((r["scenario"], r["arm"], r["seed"]), r)
    scen = sorted({k[0] for k in by}, key=lambda s: (s[0], int(s[1:])))
    arms = sorted({k[1] for k in by})
    kinds = {sc: kind_of(sc) for sc in scen}

    def per_scenario(arm: str, sc: str) -> dict[str, float] | None:
        seeds = sorted(s for (c, a, s) in by if c == sc and a == arm)
        rows = []
        for s in seeds:
            r, u, o = by[(sc, arm, s)], by.get((sc, "uniform", s)), by.get((sc, "oracle", s))
            if u is None or o is None:
                continue
            gap = (r["inf_per_rollout"] - u["inf_per_rollout"]) / (o["inf_per_rollout"] - u["inf_per_rollout"])
            g10 = (r["inf_per_rollout_first10"] - u["inf_per_rollout_first10"]) / (
                o["inf_per_rollout_first10"] - u["inf_per_rollout_first10"]
            )
            rows.append({
                "gap": float(np.clip(gap, -CLIP, CLIP)),
                "gap_first10": float(np.clip(g10, -CLIP, CLIP)),
                "held_out_gain": r["held_out_gain"],
                "held_out_over_uniform": r["held_out_gain"] - u["held_out_gain"],
                "distinct": r["distinct_problems"],
                "distinct_share": r["distinct_problems"] / pool[sc],
                "top_tenth_share": r["top_tenth_share"],
                "draws_per_problem": r["draws_per_problem"],
            })  # fmt: skip
        if not rows:
            return None
        return {k: float(np.mean([x[k] for x in rows])) for k in rows[0]}

    pool = {sc: len(replay.make_world(sc, 1, 0).problem_id) for sc in scen}
    table: dict[str, Any] = {}
    per: dict[str, dict[str, dict[str, float]]] = {}
    for arm in arms:
        per[arm] = {sc: v for sc in scen if (v := per_scenario(arm, sc)) is not None}
        if not per[arm]:
            continue
        keys = next(iter(per[arm].values())).keys()
        row = {k: round(float(np.mean([v[k] for v in per[arm].values()])), 4) for k in keys}
        row["scenarios"] = len(per[arm])
        row["by kind"] = {}
        for kind in ("learns and hurts", "contradicting", "noise only", "neither"):
            vs = [v for sc, v in per[arm].items() if kinds[sc] == kind]
            if vs:
                row["by kind"][kind] = {k: round(float(np.mean([v[k] for v in vs])), 4)
                                        for k in ("gap", "gap_first10", "held_out_gain")}  # fmt: skip
                row["by kind"][kind]["scenarios"] = len(vs)
        if arm != versus and versus in per:
            common = [sc for sc in per[arm] if sc in per[versus]]
            diff: dict[str, Any] = {}
            for k in ("held_out_gain", "gap", "gap_first10", "distinct_share", "top_tenth_share"):
                d = np.array([per[arm][sc][k] - per[versus][sc][k] for sc in common])
                diff[k] = _ms(d)
            for kind in ("learns and hurts", "contradicting", "noise only", "neither"):
                sel = [sc for sc in common if kinds[sc] == kind]
                if sel:
                    diff[kind] = {k: _ms(np.array([per[arm][sc][k] - per[versus][sc][k] for sc in sel]))
                                  for k in ("held_out_gain", "gap")}  # fmt: skip
            row[f"minus {versus}"] = diff
        table[arm] = row
    return {"versus": versus, "scenarios": len(scen),
            "kinds": {k: sum(v == k for v in kinds.values()) for k in set(kinds.values())},
            "arms": table}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", type=Path)
    ap.add_argument("--versus", default="stack", help="the reference arm of the paired differences")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    runs = []
    for f in args.results:  # a results file, or a run's <out>.partial.jsonl while it goes
        if f.suffix == ".jsonl":
            runs += [r for line in f.read_text().splitlines() for r in json.loads(line)["runs"]]
        else:
            runs += json.loads(f.read_text())["runs"]
    out = read(runs, args.versus)
    print(f"{out['scenarios']} scenarios {out['kinds']}")
    print(f"{'arm':<16}{'gap':>7}{'gap10':>7}{'held-out':>10}{'distinct':>10}{'share':>7}{'top10':>7}"
          f"   minus {args.versus}: held-out (SE, +/-), gap (SE)")  # fmt: skip
    for arm, r in out["arms"].items():
        d = r.get(f"minus {args.versus}")
        tail = (f"   {d['held_out_gain'][0]:+.4f} ({d['held_out_gain'][1]:.4f}, "
                f"{d['held_out_gain'][2]}/{d['held_out_gain'][3]}), {d['gap'][0]:+.3f} ({d['gap'][1]:.3f})"
                if d else "")  # fmt: skip
        print(f"{arm:<16}{r['gap']:>7.3f}{r['gap_first10']:>7.3f}{r['held_out_gain']:>10.4f}"
              f"{r['distinct']:>10.0f}{r['distinct_share']:>7.2f}{r['top_tenth_share']:>7.3f}{tail}")  # fmt: skip
        for kind, kd in (d or {}).items():
            if isinstance(kd, dict):
                print(f"{'':<18}{kind}: held-out {kd['held_out_gain'][0]:+.4f} ({kd['held_out_gain'][1]:.4f}, "
                      f"{kd['held_out_gain'][2]}/{kd['held_out_gain'][3]}), gap {kd['gap'][0]:+.3f} ({kd['gap'][1]:.3f})")  # fmt: skip
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
