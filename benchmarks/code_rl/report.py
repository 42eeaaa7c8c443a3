"""B3's summary from the run files: final held-out pass@1 (mean of sources, and per source) with
paired standard errors against uniform on the seeds both ran, rollouts (discarded included) and
compute (generated + scoring tokens) to reach uniform's final pass rate, and the scorer's quality."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["summarize", "table"]

BASE = "uniform"


def _load(
    root: Path, inputs: str | None = None, seeds: set[int] | None = None
) -> dict[str, dict[int, dict[str, Any]]]:
    """The run files under `root`; with `inputs`, only the runs made on those frozen inputs (a run
    on other inputs is named and left out, so two sets of inputs never mix in one summary); with
    `seeds`, only those seeds (development and fresh seeds are summarised apart)."""
    runs: dict[str, dict[int, dict[str, Any]]] = {}
    for f in sorted(root.glob("*/seed*.json")):
        r = json.loads(f.read_text())
        if seeds is not None and int(r["seed"]) not in seeds:
            continue
        if inputs is not None and r.get("inputs") != inputs:
            print(f"{f}: made on inputs {r.get('inputs')}, not {inputs}: left out of the summary")
            continue
        runs.setdefault(r["arm"], {})[int(r["seed"])] = r
    return runs


def _mean_curve(runs: dict[int, dict[str, Any]], key: str) -> tuple[np.ndarray, np.ndarray]:
    steps = [p["step"] for p in next(iter(runs.values()))["curve"]]
    vals = np.array([[p[key] for p in r["curve"]] for r in runs.values()], dtype=float)
    return np.array(steps), vals.mean(axis=0)


def _reach(runs: dict[int, dict[str, Any]], target: float, cost: str) -> float | None:
    """`cost` (mean over seeds) when the mean curve first reaches `target`, linear between
    evaluations; None if it never does."""
    _, pass1 = _mean_curve(runs, "pass1")
    _, c = _mean_curve(runs, cost)
    for i in range(len(pass1)):
        if pass1[i] >= target - 1e-12:
            if i == 0:
                return float(c[0])
            f = (target - pass1[i - 1]) / max(pass1[i] - pass1[i - 1], 1e-12)
            return float(c[i - 1] + f * (c[i] - c[i - 1]))
    return None


def _compute(p: dict[str, Any]) -> float:
    return float(p["generated_tokens"] + p["scoring_tokens"])


def summarize(
    root: Path,
    model: dict[str, Any],
    data: dict[str, Any],
    times: dict[str, float],
    inputs: str | None = None,
    seeds: set[int] | None = None,
) -> dict[str, Any]:
    runs = _load(root, inputs, seeds)
    for arm in runs.values():
        for r in arm.values():
            for p in r["curve"]:
                p["compute_tokens"] = _compute(p)
    out: dict[str, Any] = {
        "model": {
            k: model[k] for k in ("model", "chosen_step", "chosen", "wall_s", "in_band", "evals")
        },
        "data": {"counts": data["manifest"]["counts"]["output"], "times": data["times"]},
        "times": times,
        "inputs": inputs,
        "arms": {},
    }
    if BASE not in runs:
        return out
    base = runs[BASE]
    target = float(np.mean([r["curve"][-1]["pass1"] for r in base.values()]))
    base_roll = float(np.mean([r["curve"][-1]["rollouts"] for r in base.values()]))
    base_comp = float(np.mean([r["curve"][-1]["compute_tokens"] for r in base.values()]))
    out["target_pass1"] = target
    start = float(np.mean([r["curve"][0]["pass1"] for r in base.values()]))
    out["start_pass1"] = start
    # uniform ending no better than it began makes "rollouts to uniform's final" void (0 for all)
    out["target_void"] = bool(target <= start)
    for name, arm in runs.items():
        seeds = sorted(arm)
        finals = np.array([arm[s]["curve"][-1]["pass1"] for s in seeds])
        common = [s for s in seeds if s in base]
        diff = np.array(
            [arm[s]["curve"][-1]["pass1"] - base[s]["curve"][-1]["pass1"] for s in common]
        )
        sources = sorted(arm[seeds[0]]["curve"][-1]["per_source"])
        per_source = {
            src: float(np.mean([arm[s]["curve"][-1]["per_source"][src] for s in seeds]))
            for src in sources
        }
        roll = _reach(arm, target, "rollouts")
        comp = _reach(arm, target, "compute_tokens")
        last = [arm[s]["curve"][-1] for s in seeds]
        quality = [q for s in seeds for q in arm[s].get("quality", [])]
        out["arms"][name] = {
            "seeds": seeds,
            "pass1": float(finals.mean()),
            "start_pass1": float(np.mean([arm[s]["curve"][0]["pass1"] for s in seeds])),
            "pass1_sd": float(finals.std(ddof=1)) if len(finals) > 1 else None,
            "diff_vs_uniform": float(diff.mean()) if len(diff) else None,
            "diff_se": float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else None,
            "per_source": per_source,
            "rollouts_to_target": roll,
            "rollouts_x_uniform": None if roll is None else roll / base_roll,
            "compute_to_target": comp,
            "compute_x_uniform": None if comp is None else comp / base_comp,
            "rollouts": float(np.mean([p["rollouts"] for p in last])),
            "discarded_share": float(
                np.mean([p["discarded_rollouts"] / max(p["rollouts"], 1) for p in last])
            ),
            "zero_advantage_share": float(
                np.mean([p["zero_advantage_groups"] / max(p["groups"], 1) for p in last])
            ),
            "generated_tokens": float(np.mean([p["generated_tokens"] for p in last])),
            "scoring_tokens": float(np.mean([p["scoring_tokens"] for p in last])),
            "sandbox_cpu_s": float(np.mean([p["sandbox_cpu_s"] for p in last])),
            "wall_s": float(np.mean([arm[s]["wall_s"] for s in seeds])),
            "loop": arm[seeds[0]]["loop"],
            "scorer_quality": _quality(quality),
        }
    return out


def _quality(points: list[dict[str, Any]]) -> dict[str, Any]:
    by_step: dict[int, list[dict[str, Any]]] = {}
    for q in points:
        by_step.setdefault(int(q["step"]), []).append(q)
    out: dict[str, Any] = {}
    for step, qs in sorted(by_step.items()):
        row: dict[str, Any] = {
            "n": len(qs),
            "mean_pass": float(np.mean([q["mean_pass"] for q in qs])),
        }
        for kind in ("mean", "sum"):
            for metric in ("spearman", "auroc_solved", "auroc_half"):
                v = np.array([q[kind][metric] for q in qs], dtype=float)
                v = v[np.isfinite(v)]
                row[f"{kind}_{metric}"] = (
                    [float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else None]
                    if len(v)
                    else None
                )
        within = [_within_source(q) for q in qs if "rows" in q]
        within = [w for w in within if np.isfinite(w)]
        if within:  # Spearman of the mean log-likelihood inside each source, averaged
            row["mean_spearman_within_source"] = float(np.mean(within))
        out[str(step)] = row
    return out


def _within_source(q: dict[str, Any]) -> float:
    from code_rl.grpo import spearman

    rows = q["rows"]
    src = np.array(rows["source"])
    vals = []
    for s in sorted(set(src)):
        k = src == s
        rho = spearman(np.array(rows["mean_ll"])[k], np.array(rows["pass"])[k])
        if np.isfinite(rho):
            vals.append(rho)
    return float(np.mean(vals)) if vals else float("nan")


def _fmt(x: float | None, spec: str = ".2f") -> str:
    return "never" if x is None else format(x, spec)


def table(summary: dict[str, Any]) -> str:
    lines = [
        f"target (uniform's final held-out pass@1): {_fmt(summary.get('target_pass1'), '.3f')}, "
        f"uniform's start {_fmt(summary.get('start_pass1'), '.3f')}"
        + (
            " (uniform did not improve: rollouts to target are void)"
            if summary.get("target_void")
            else ""
        ),
        "| arm | seeds | rollouts to target (x uniform) | compute to target (x uniform) | start -> final pass@1 | vs uniform (paired SE) | discarded | zero-adv groups | wall s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, a in summary.get("arms", {}).items():
        diff = "-" if a["diff_vs_uniform"] is None else f"{a['diff_vs_uniform']:+.3f}"
        if a["diff_se"] is not None:
            diff += f" ± {a['diff_se']:.3f}"
        lines.append(
            f"| {name} | {len(a['seeds'])} | {_fmt(a['rollouts_x_uniform'])} | {_fmt(a['compute_x_uniform'])} | "
            f"{a['start_pass1']:.3f} -> {a['pass1']:.3f} | {diff} | {a['discarded_share']:.2f} | {a['zero_advantage_share']:.2f} | {a['wall_s']:.0f} |"
        )
    return "\n".join(lines)
