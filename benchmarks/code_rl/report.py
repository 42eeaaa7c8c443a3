"""B3's summaries from the run files.

B3 (`summarize`): final held-out pass@1 (mean of sources, and per source) with paired standard
errors against uniform on the seeds both ran, rollouts (discarded included) and compute (generated
+ scoring tokens) to reach uniform's final pass rate, and the scorer's quality.

B3 v2 (`summarize_v2`): the target metric is micro pass@1 over the held-out problems of the target
sources (`pass1_target`), the target a registered number (start + 0.05). Per arm: final pass@1
paired against uniform with its standard error over seeds, per source and the readouts (trivial,
mislabeled); rollouts and compute to the target (per seed and on the mean curve); the grid's
headline, rollouts to uniform's mean final (page b3v2.md, section 9); the area under
pass@1 against rollouts over uniform's budget; zero-advantage share overall and per source,
informative groups per 1,000 rollouts, draws per problem, CPU seconds per phase. `gates` checks
the validity gates (a) and (b) on the development seeds; `judge_stack_claim` judges issue 40's B3
claim on the fresh seeds, as registered.

B3 v3 (`measure_v3`, `registered_measure`, `table_v3`; page b3v3.md): the area and the fitted
rollouts to uniform's final with paired seed-bootstrap intervals, final pass@1 on both held-out
sets (the first, `pass1_target`; the held-out families, `pass1_families`) paired against uniform
and DAPO-with-filter with their SEs; `gates_v3` and `judge_v3_claim` as registered."""

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


def _cross(xs: np.ndarray, ys: np.ndarray, target: float) -> float | None:
    """The x at which the piecewise-linear curve (xs, ys) first reaches `target`; None if never."""
    for i in range(len(ys)):
        if ys[i] >= target - 1e-12:
            if i == 0:
                return float(xs[0])
            f = (target - ys[i - 1]) / max(ys[i] - ys[i - 1], 1e-12)
            return float(xs[i - 1] + f * (xs[i] - xs[i - 1]))
    return None


def _reach(runs: dict[int, dict[str, Any]], target: float, cost: str) -> float | None:
    """`cost` (mean over seeds) when the mean curve first reaches `target`, linear between
    evaluations; None if it never does."""
    _, pass1 = _mean_curve(runs, "pass1")
    _, c = _mean_curve(runs, cost)
    return _cross(c, pass1, target)


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


def _paired(arm: dict[str, Any]) -> str:
    """An arm's difference from uniform, with its paired standard error where there is one."""
    if arm["diff_vs_uniform"] is None:
        return "-"
    se = "" if arm["diff_se"] is None else f" ± {arm['diff_se']:.3f}"
    return f"{arm['diff_vs_uniform']:+.3f}{se}"


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
        diff = _paired(a)
        lines.append(
            f"| {name} | {len(a['seeds'])} | {_fmt(a['rollouts_x_uniform'])} | {_fmt(a['compute_x_uniform'])} | "
            f"{a['start_pass1']:.3f} -> {a['pass1']:.3f} | {diff} | {a['discarded_share']:.2f} | {a['zero_advantage_share']:.2f} | {a['wall_s']:.0f} |"
        )
    return "\n".join(lines)


# ---- B3 v2 ---------------------------------------------------------------------------------
METRIC = "pass1_target"
#: B3 v3's second held-out set, families no training problem comes from (micro pass@1)
FAMILIES_METRIC = "pass1_families"


def _area(xs: np.ndarray, ys: np.ndarray, budget: float) -> float:
    """Mean of the piecewise-linear curve (xs, ys) over x in [0, budget] (the last value held
    past the curve's end): the area under pass@1 against rollouts, over the budget."""
    grid = np.linspace(0.0, budget, 401)
    return float(np.interp(grid, xs, ys).mean())


def _curve(run: dict[str, Any], cost: str) -> tuple[np.ndarray, np.ndarray]:
    pts = run["curve"]
    xs = np.array([_compute(p) if cost == "compute" else p[cost] for p in pts], dtype=float)
    return xs, np.array([p[METRIC] for p in pts], dtype=float)


def _mean_cross(runs: list[dict[str, Any]], target: float, cost: str) -> float | None:
    """`cost` at which the mean curve over seeds reaches `target` (costs averaged per point)."""
    curves = [_curve(r, cost) for r in runs]
    xs = np.mean([c[0] for c in curves], axis=0)
    ys = np.mean([c[1] for c in curves], axis=0)
    return _cross(xs, ys, target)


def _max_drop(run: dict[str, Any]) -> tuple[float, str | None]:
    """The largest fall of one source's held-out pass@1 between consecutive evaluations."""
    worst, where = 0.0, None
    pts = run["curve"]
    for a, b in zip(pts, pts[1:]):
        for src, v in a["per_source"].items():
            d = v - b["per_source"][src]
            if d > worst:
                worst, where = d, f"{src} step {a['step']}->{b['step']}"
    return worst, where


def _trace_stats(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Zero-advantage share overall and per source, informative groups per 1,000 rollouts, draws
    per problem (and the share of draws on the most drawn tenth of problems) and optimizer steps,
    from the runs' traces (mean over seeds)."""
    out: dict[str, Any] = {}
    per: list[dict[str, Any]] = []
    for r in runs:
        t = r["trace"]
        draws = np.array(t["draws"], dtype=float).sum(axis=0)
        zero = np.array(t["zero_advantage"], dtype=float).sum(axis=0)
        counts = np.array(t["draws_per_problem"], dtype=float)
        drawn = counts[counts > 0]
        per.append(
            {
                "zero_advantage_share": float(zero.sum() / max(draws.sum(), 1)),
                "zero_advantage_by_source": {
                    s: (float(z / d) if d else None) for s, z, d in zip(t["sources"], zero, draws)
                },
                "draw_share_by_source": {
                    s: float(d / max(draws.sum(), 1)) for s, d in zip(t["sources"], draws)
                },
                "informative_per_1k_rollouts": float(
                    1000 * sum(t["informative"]) / max(sum(t["rollouts"]), 1)
                ),
                "draws_per_drawn_problem": float(drawn.mean()) if len(drawn) else 0.0,
                "problems_drawn_share": float(len(drawn) / max(len(counts), 1)),
                "max_draws_of_a_problem": int(counts.max()) if len(counts) else 0,
                # how concentrated the draws are: the share of them on the most drawn tenth
                "top_decile_draw_share": (
                    float(np.sort(counts)[::-1][: max(len(counts) // 10, 1)].sum() / counts.sum())
                    if counts.sum()
                    else 0.0
                ),
                "optimizer_steps": int(sum(1 for u in t["updated"] if u)),
            }
        )
    for k in per[0]:
        if isinstance(per[0][k], dict):
            out[k] = {
                s: (
                    None
                    if any(p[k][s] is None for p in per)
                    else float(np.mean([p[k][s] for p in per]))
                )
                for s in per[0][k]
            }
        else:
            out[k] = float(np.mean([p[k] for p in per]))
    return out


def _phases(runs: list[dict[str, Any]]) -> dict[str, float]:
    keys = sorted({k for r in runs for k in r.get("phases", {}).get("cpu_s", {})})
    return {k: float(np.mean([r["phases"]["cpu_s"].get(k, 0.0) for r in runs])) for k in keys}


def summarize_v2(
    root: Path,
    target: float,
    start: float,
    inputs: str | None = None,
    seeds: set[int] | None = None,
    budget: float | None = None,
) -> dict[str, Any]:
    """B3 v2's summary of the runs under `root` (one setting): `target` and `start` are the
    registered micro pass@1 numbers; `budget` the rollouts of uniform's run (the area's range)."""
    runs = _load(root, inputs, seeds)
    out: dict[str, Any] = {"inputs": inputs, "target": target, "start": start, "arms": {}}
    base = runs.get(BASE, {})
    if base:
        budget = budget or float(np.mean([r["curve"][-1]["rollouts"] for r in base.values()]))
    base_roll = _mean_cross(list(base.values()), target, "rollouts") if base else None
    base_comp = _mean_cross(list(base.values()), target, "compute") if base else None
    # the grid's headline (page b3v2.md, section 9): rollouts to uniform's mean final pass@1
    u_final = float(np.mean([r["curve"][-1][METRIC] for r in base.values()])) if base else None
    u_reach = _mean_cross(list(base.values()), u_final, "rollouts") if base else None
    out["budget_rollouts"] = budget
    out["uniform_final"] = u_final
    for name, arm in sorted(runs.items()):
        ss = sorted(arm)
        rs = [arm[s] for s in ss]
        finals = np.array([r["curve"][-1][METRIC] for r in rs])
        common = [s for s in ss if s in base]
        diff = np.array(
            [arm[s]["curve"][-1][METRIC] - base[s]["curve"][-1][METRIC] for s in common]
        )
        last = [r["curve"][-1] for r in rs]
        first = [r["curve"][0] for r in rs]
        sources = sorted(last[0]["per_source"])
        roll_seed = [_cross(*_curve(r, "rollouts"), target) for r in rs]
        comp_seed = [_cross(*_curve(r, "compute"), target) for r in rs]
        roll = _mean_cross(rs, target, "rollouts")
        comp = _mean_cross(rs, target, "compute")
        reach = _mean_cross(rs, u_final, "rollouts") if u_final is not None else None
        reach_seed = [  # against the same seed's uniform final
            _cross(*_curve(arm[s], "rollouts"), base[s]["curve"][-1][METRIC]) if s in base else None
            for s in ss
        ]
        out["arms"][name] = {
            "seeds": ss,
            "pass1": float(finals.mean()),
            "pass1_sd": float(finals.std(ddof=1)) if len(finals) > 1 else None,
            "pass1_by_seed": finals.tolist(),
            "start_pass1": float(np.mean([p[METRIC] for p in first])),
            "diff_vs_uniform": float(diff.mean()) if len(diff) else None,
            "diff_se": float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else None,
            "per_source": {s: float(np.mean([p["per_source"][s] for p in last])) for s in sources},
            "start_per_source": {
                s: float(np.mean([p["per_source"][s] for p in first])) for s in sources
            },
            "rollouts_to_target_by_seed": roll_seed,
            "rollouts_to_target": roll,
            "rollouts_x_uniform": None if roll is None or not base_roll else roll / base_roll,
            "rollouts_to_uniform_final": reach,
            "uniform_final_x_uniform": None if reach is None or not u_reach else reach / u_reach,
            "rollouts_to_uniform_final_by_seed": reach_seed,
            "compute_to_target_by_seed": comp_seed,
            "compute_to_target": comp,
            "compute_x_uniform": None if comp is None or not base_comp else comp / base_comp,
            "area": (
                float(np.mean([_area(*_curve(r, "rollouts"), budget) for r in rs]))
                if budget
                else None
            ),
            "rollouts": float(np.mean([p["rollouts"] for p in last])),
            "discarded_share": float(
                np.mean([p["discarded_rollouts"] / max(p["rollouts"], 1) for p in last])
            ),
            "skipped_prompts": float(np.mean([p["skipped_prompts"] for p in last])),
            "generated_tokens": float(np.mean([p["generated_tokens"] for p in last])),
            "scoring_tokens": float(np.mean([p["scoring_tokens"] for p in last])),
            "max_source_drop": max((_max_drop(r) for r in rs), key=lambda x: x[0]),
            "cpu_s": _phases(rs),
            "wall_s": float(np.mean([r["wall_s"] for r in rs])),
            "loop": rs[0]["loop"],
            **(_trace_stats(rs) if all("trace" in r for r in rs) else {}),
        }
        if all("probe" in r for r in rs):
            out["arms"][name]["probe_rollouts"] = float(
                np.mean([r["probe"]["rollouts"] for r in rs])
            )
    return out


#: validity gates (issue 41), registered on benchmarks/pages/b3v2.md before any arm ran
GATE_A_GAIN = 0.08
GATE_A_DROP = 0.2
GATE_B_RATIO = 0.5


def gates(summary: dict[str, Any], runs_root: Path, inputs: str | None, seeds: set[int]) -> dict:
    """Gate (a): uniform's final target pass@1 at least `GATE_A_GAIN` above the registered start on
    every development seed, and no source falling more than `GATE_A_DROP` between evaluations in
    any of its runs. Gate (b): the oracle's mean curve reaches uniform's mean final with at most
    `GATE_B_RATIO` of uniform's rollouts."""
    runs = _load(runs_root, inputs, seeds)
    start = summary["start"]
    out: dict[str, Any] = {}
    base = runs.get(BASE, {})
    if base and set(base) >= seeds:
        gains = {s: base[s]["curve"][-1][METRIC] - start for s in sorted(base)}
        drops = {s: _max_drop(base[s]) for s in sorted(base)}
        out["a"] = {
            "gain_by_seed": gains,
            "max_drop_by_seed": drops,
            "passed": all(g >= GATE_A_GAIN for g in gains.values())
            and all(d[0] <= GATE_A_DROP for d in drops.values()),
        }
    oracle = runs.get("oracle", {})
    if base and oracle and set(base) >= seeds and set(oracle) >= seeds:
        final = float(np.mean([base[s]["curve"][-1][METRIC] for s in seeds]))
        used = float(np.mean([base[s]["curve"][-1]["rollouts"] for s in seeds]))
        reach = _mean_cross([oracle[s] for s in sorted(seeds)], final, "rollouts")
        by_seed = {
            s: _cross(*_curve(oracle[s], "rollouts"), base[s]["curve"][-1][METRIC])
            for s in sorted(seeds)
        }
        out["b"] = {
            "uniform_final": final,
            "uniform_rollouts": used,
            "oracle_rollouts_to_it": reach,
            "ratio": None if reach is None else reach / used,
            "oracle_rollouts_to_own_seed_uniform_final": by_seed,
            "passed": reach is not None and reach <= GATE_B_RATIO * used,
        }
    return out


#: issue 40's claim on B3 v2, registered on benchmarks/pages/b3v2.md (section 9) before the grid ran:
#: the default stack reaches uniform's mean final with at most this share of uniform's rollouts ...
CLAIM_STACK_RATIO = 0.5
#: ... and with fewer rollouts than these arms (DAPO is uniform in the fill loop: below 1.0x)
CLAIM_RIVALS = ("mopps", "greso")


def judge_stack_claim(summary: dict[str, Any], seeds: set[int]) -> dict[str, Any]:
    """Issue 40's B3 claim on the grid's summary over `seeds` (the fresh ones): the stack's
    "rollouts to uniform's final" (x uniform, mean curves) at most `CLAIM_STACK_RATIO`, below 1.0
    and below each of `CLAIM_RIVALS` (an arm whose mean curve never reaches it counts as infinite).
    `passed` is None until uniform, the stack and the rivals have run every seed: no seed is
    dropped and a part of the grid is never judged."""
    arms = summary.get("arms", {})
    names = (BASE, "stack", *CLAIM_RIVALS)
    missing = {n: sorted(seeds - set(arms.get(n, {}).get("seeds", []))) for n in names}
    ratio = {n: arms.get(n, {}).get("uniform_final_x_uniform") for n in names}
    x = ratio["stack"]
    below = {n: x is not None and (ratio[n] is None or x < ratio[n]) for n in CLAIM_RIVALS}
    met = x is not None and x <= CLAIM_STACK_RATIO and x < 1.0 and all(below.values())
    complete = not any(missing.values())
    return {
        "seeds": sorted(seeds),
        "complete": complete,
        "missing_seeds": {n: m for n, m in missing.items() if m},
        "stack_x_uniform": x,
        "rivals_x_uniform": {n: ratio[n] for n in CLAIM_RIVALS},
        "stack_below": below,
        "passed": met if complete else None,
    }


def choose_lr(by_lr: dict[float, dict[str, Any]], seeds: set[int]) -> dict[str, Any]:
    """The pilot's rule, registered before it ran: of the rates whose uniform runs finished on
    every seed in `seeds` with no source falling more than `GATE_A_DROP` between evaluations, the
    one with the highest mean final target pass@1 (None if no rate qualifies).

    Means equal to 1e-9 are a tie (the same number of passing samples: B3 v2's pilot had 1e-4 and
    2e-4 at 0.530167 each, apart only in the last bit of the float sum). The registration named no
    tie-break; the one added after it ran uses the rule's other criterion: the smaller largest
    source drop, then the lower rate."""
    rows = {}
    for lr, summary in sorted(by_lr.items()):
        u = summary["arms"].get(BASE)
        if u is None or set(u["seeds"]) < seeds:
            rows[lr] = {"complete": False}
            continue
        rows[lr] = {
            "complete": True,
            "pass1": u["pass1"],
            "pass1_by_seed": u["pass1_by_seed"],
            "max_source_drop": u["max_source_drop"],
            "stable": u["max_source_drop"][0] <= GATE_A_DROP,
        }
    ok = {lr: r for lr, r in rows.items() if r.get("complete") and r["stable"]}
    if not ok:
        return {"rates": rows, "chosen": None}
    best = max(r["pass1"] for r in ok.values())
    tied = [lr for lr, r in ok.items() if best - r["pass1"] <= 1e-9]
    chosen = min(tied, key=lambda lr: (ok[lr]["max_source_drop"][0], lr))
    return {"rates": rows, "chosen": chosen, "tied": sorted(tied) if len(tied) > 1 else []}


def table_v2(summary: dict[str, Any]) -> str:
    lines = [
        f"target micro pass@1 {summary['target']:.3f} (registered start {summary['start']:.3f} + 0.05); "
        f"area over {_fmt(summary.get('budget_rollouts'), '.0f')} rollouts; "
        f"uniform's final {_fmt(summary.get('uniform_final'), '.3f')}",
        "| arm | seeds | start -> final pass@1 (sd) | vs uniform (paired SE) | rollouts to uniform's final (x uniform; seeds reaching their own) | rollouts to target (x uniform) | compute to target (x uniform) | area | zero-adv | informative / 1k rollouts | draws / drawn problem | trivial / mislabeled final | CPU s (gen / grade / update / eval) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, a in summary.get("arms", {}).items():
        diff = _paired(a)
        sd = "" if a["pass1_sd"] is None else f" ({a['pass1_sd']:.3f})"
        reached = sum(x is not None for x in a["rollouts_to_target_by_seed"])
        roll = f"{_fmt(a['rollouts_to_target'], '.0f')} ({_fmt(a['rollouts_x_uniform'])}; {reached}/{len(a['seeds'])} seeds)"
        comp = f"{_fmt(a['compute_to_target'], '.3g')} ({_fmt(a['compute_x_uniform'])})"
        own = a.get("rollouts_to_uniform_final_by_seed", [])
        head = (
            f"{_fmt(a.get('rollouts_to_uniform_final'), '.0f')} ({_fmt(a.get('uniform_final_x_uniform'))}; "
            f"{sum(x is not None for x in own)}/{len(own)})"
        )
        c = a["cpu_s"]
        cpu = " / ".join(
            f"{c.get(k, 0.0):.0f}" for k in ("generation", "grading", "update", "evaluation")
        )
        ps = a["per_source"]
        lines.append(
            f"| {name} | {len(a['seeds'])} | {a['start_pass1']:.3f} -> {a['pass1']:.3f}{sd} | {diff} | {head} | {roll} | {comp} | "
            f"{_fmt(a['area'], '.3f')} | {_fmt(a.get('zero_advantage_share'))} | {_fmt(a.get('informative_per_1k_rollouts'), '.0f')} | "
            f"{_fmt(a.get('draws_per_drawn_problem'), '.1f')} | {ps.get('trivial', float('nan')):.2f} / {ps.get('mislabeled', float('nan')):.2f} | {cpu} |"
        )
    return "\n".join(lines)


# B3 v3's registered measure (issue 53): the area under held-out pass@1 over the rollout budget,
# and rollouts to uniform's final read on a fitted curve, with seed-bootstrap intervals; nothing
# hangs on one crossing of a noisy curve.

#: the fitted curve's time constants tried (rollouts), a log grid from 1/64 to 64 budgets
_TAUS = np.geomspace(1 / 64, 64, 241)


def fit_curve(xs: np.ndarray, ys: np.ndarray, start: float, budget: float) -> tuple[float, float]:
    """Least-squares fit of y = start + A (1 - exp(-x / tau)) to the points (xs, ys) (every seed's
    evaluations pooled; every arm shares the start, the frozen policy's pass@1): (A, tau). tau on
    a log grid of `budget` multiples, A in closed form for each; A may be negative (a falling arm)."""
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float) - start
    best = (np.inf, 0.0, float(budget))
    for t in _TAUS * budget:
        g = 1.0 - np.exp(-xs / t)
        den = float(g @ g)
        a = float(g @ ys) / den if den > 0 else 0.0
        err = float(((ys - a * g) ** 2).sum())
        if err < best[0]:
            best = (err, a, float(t))
    return best[1], best[2]


def fitted_value(fit: tuple[float, float], start: float, x: float) -> float:
    a, tau = fit
    return start + a * (1.0 - np.exp(-x / tau))


def fitted_reach(fit: tuple[float, float], start: float, target: float) -> float:
    """Rollouts at which the fitted curve reaches `target` (inf if it never does)."""
    a, tau = fit
    gain = target - start
    if gain <= 0:
        return 0.0
    if a <= gain:
        return float("inf")
    return float(-tau * np.log(1.0 - gain / a))


def _points(runs: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    xs = np.concatenate([_curve(r, "rollouts")[0] for r in runs])
    ys = np.concatenate([_curve(r, "rollouts")[1] for r in runs])
    return xs, ys


def registered_measure(
    runs: dict[str, dict[int, dict[str, Any]]],
    start: float,
    budget: float,
    base: str = BASE,
    versus: tuple[str, ...] = ("dapo-filter",),
    boots: int = 2000,
    seed: int = 0,
    level: float = 0.90,
) -> dict[str, Any]:
    """Per arm, on the seeds every compared arm ran: the area (mean over seeds of each run's mean
    pass@1 over [0, budget] rollouts), and the rollouts at which its fitted curve reaches the
    baseline's fitted value at the budget (its "final"), over the budget (the baseline's own
    ratio is 1 by construction); each with a seed-bootstrap interval (seeds drawn with replacement,
    the same draw for every arm: paired) and standard error, and the paired differences against
    the baseline and each arm of `versus`: area difference and ratio difference with their SE and
    the share of resamples in which the arm is ahead."""
    if base not in runs:
        raise ValueError(f"no {base} runs")
    seeds = sorted(set.intersection(*(set(r) for r in runs.values())))
    if len(seeds) < 2:
        raise ValueError(f"the arms share {len(seeds)} seeds; the bootstrap needs at least 2")

    def point(pick: list[int]) -> dict[str, tuple[float, float]]:
        fb = fit_curve(*_points([runs[base][s] for s in pick]), start, budget)
        target = fitted_value(fb, start, budget)
        out = {}
        for arm, by_seed in runs.items():
            chosen = [by_seed[s] for s in pick]
            area = float(np.mean([_area(*_curve(r, "rollouts"), budget) for r in chosen]))
            fit = fb if arm == base else fit_curve(*_points(chosen), start, budget)
            out[arm] = (area, fitted_reach(fit, start, target) / budget)
        return out

    rng = np.random.default_rng(seed)
    whole = point(seeds)
    draws = [point(list(rng.choice(seeds, size=len(seeds), replace=True))) for _ in range(boots)]
    lo_q, hi_q = (1 - level) / 2, 1 - (1 - level) / 2

    def stats(vals: np.ndarray) -> dict[str, Any]:
        fin = vals[np.isfinite(vals)]
        return {
            "interval": [  # "never" (inf) is the largest value: no interpolation into it
                float(np.quantile(vals, lo_q, method="inverted_cdf")),
                float(np.quantile(vals, hi_q, method="inverted_cdf")),
            ],
            "se": float(fin.std(ddof=1)) if len(fin) > 1 else None,
            "never_share": float(np.mean(~np.isfinite(vals))),
        }

    arms: dict[str, Any] = {}
    for arm in runs:
        area = np.array([d[arm][0] for d in draws])
        ratio = np.array([d[arm][1] for d in draws])
        rec: dict[str, Any] = {
            "area": whole[arm][0],
            "area_boot": stats(area),
            "rollouts_to_base_final_x": whole[arm][1],
            "ratio_boot": stats(ratio),
            "vs": {},
        }
        for other in (base, *versus):
            if other == arm or other not in runs:
                continue
            da = area - np.array([d[other][0] for d in draws])
            dr = ratio - np.array([d[other][1] for d in draws])
            rec["vs"][other] = {
                "area_diff": whole[arm][0] - whole[other][0],
                "area_diff_se": float(da.std(ddof=1)),
                "ratio_diff": whole[arm][1] - whole[other][1],
                "ratio_diff_se": float(dr[np.isfinite(dr)].std(ddof=1))
                if np.isfinite(dr).sum() > 1
                else None,
                "ahead_share": float(np.mean(ratio < np.array([d[other][1] for d in draws]))),
            }
        rec["final"] = _paired_finals(runs, arm, seeds, (base, *versus))
        arms[arm] = rec
    return {
        "seeds": seeds,
        "start": start,
        "budget": budget,
        "base": base,
        "base_fitted_final": fitted_value(
            fit_curve(*_points([runs[base][s] for s in seeds]), start, budget), start, budget
        ),
        "boots": boots,
        "level": level,
        "arms": arms,
    }


def _paired_finals(
    runs: dict[str, dict[int, dict[str, Any]]],
    arm: str,
    seeds: list[int],
    others: tuple[str, ...],
) -> dict[str, Any]:
    """Final pass@1 of `arm` on each held-out set its runs evaluated (`METRIC`, the first;
    `FAMILIES_METRIC`, the held-out families), mean over `seeds`, and against each of `others`
    the mean per-seed difference with its standard error (sd / sqrt(seeds)): paired on seeds."""
    out: dict[str, Any] = {}
    for key in (METRIC, FAMILIES_METRIC):
        if not all(key in runs[arm][s]["curve"][-1] for s in seeds):
            continue
        mine = np.array([runs[arm][s]["curve"][-1][key] for s in seeds], dtype=float)
        rec: dict[str, Any] = {"mean": float(mine.mean()), "vs": {}}
        for other in others:
            if other == arm or other not in runs:
                continue
            if not all(key in runs[other][s]["curve"][-1] for s in seeds):
                continue
            theirs = np.array([runs[other][s]["curve"][-1][key] for s in seeds], dtype=float)
            d = mine - theirs
            rec["vs"][other] = {
                "diff": float(d.mean()),
                "se": float(d.std(ddof=1) / np.sqrt(len(d))),
            }
        out[key] = rec
    return out


def measure_v3(
    root: Path,
    start: float,
    inputs: str | None,
    seeds: set[int],
    families_start: dict[str, Any] | None = None,
    budget: float | None = None,
    boots: int = 2000,
) -> dict[str, Any]:
    """The registered measure (`registered_measure`) of the runs under `root` on `seeds`, over
    the arms that ran every seed uniform ran (an arm short of seeds is named, not measured; the
    bootstrap pairs seeds); `budget` by default the runs' registered rollouts. Without two such
    seeds: a record saying why."""
    runs = _load(root, inputs, seeds)
    base = runs.get(BASE, {})
    if len(base) < 2:
        return {"skipped": f"{BASE} has {len(base)} of the seeds; the measure needs 2"}
    done = set(base)
    full = {a: r for a, r in runs.items() if set(r) >= done}
    budget = (
        budget
        or float(next(iter(base.values()))["config"]["rollouts"] or 0)
        or float(np.mean([r["curve"][-1]["rollouts"] for r in base.values()]))
    )
    m = registered_measure(full, start, budget, boots=boots)
    m["short_of_seeds"] = {a: sorted(done - set(r)) for a, r in runs.items() if a not in full}
    for a, rec in m["arms"].items():  # zero-advantage share, informative groups, on those seeds
        rs = [full[a][s] for s in m["seeds"]]
        if all("trace" in r for r in rs):
            rec["trace"] = _trace_stats(rs)
        if all("probe" in r for r in rs):
            rec["probe_rollouts"] = float(np.mean([r["probe"]["rollouts"] for r in rs]))
    if families_start is not None:
        m["families_start"] = families_start["pass_rate"]
    return m


def table_v3(measure: dict[str, Any], spearman: dict[str, Any] | None = None) -> str:
    """B3 v3's table (b3v3.md, section 5): per arm the area and the fitted rollouts to uniform's
    final with their intervals and paired differences, final pass@1 on both held-out sets paired
    against uniform, zero-advantage share, informative groups per 1,000 rollouts; with the prior's
    Spearman when given."""
    if "arms" not in measure:
        return f"registered measure: {measure.get('skipped')}"
    lv = int(round(100 * measure["level"]))
    head = (
        f"seeds {measure['seeds']}; budget {measure['budget']:.0f} rollouts; S = "
        f"{measure['start']:.4f} (first held-out set), "
        f"{_fmt(measure.get('families_start'), '.4f')} (held-out families); uniform's fitted "
        f"final {measure['base_fitted_final']:.4f}; {measure['boots']} paired resamples, {lv}% intervals"
    )
    if spearman:
        head += "; prior's Spearman vs the policy's step-0 pass rates " + json.dumps(spearman)
    lines = [
        head,
        "| arm | area (interval) | fitted rollouts to uniform's final, x uniform (interval; SE) "
        "| vs uniform: area (SE) / ratio (SE) | vs dapo-filter: ratio (SE) "
        "| final pass@1, first held-out set (vs uniform, SE) "
        "| final pass@1, held-out families (vs uniform, SE) | zero-adv | informative / 1k rollouts |",
        "|---|---|---|---|---|---|---|---|---|",
    ]

    def _vs(rec: dict[str, Any], other: str, key: str, spec: str = "+.3f") -> str:
        v = rec["vs"].get(other)
        if v is None:
            return ""
        se = v[f"{key}_se"]
        return f"{_fmt(v[key], spec)} ({_fmt(se, '.3f')})"

    for name, a in measure["arms"].items():
        lo, hi = a["area_boot"]["interval"]
        rlo, rhi = a["ratio_boot"]["interval"]
        fin = []
        for key in (METRIC, FAMILIES_METRIC):
            f = a.get("final", {}).get(key)
            if f is None:
                fin.append("")
                continue
            v = f["vs"].get(BASE)
            fin.append(f"{f['mean']:.3f}" + (f" ({v['diff']:+.3f}, {v['se']:.3f})" if v else ""))
        t = a.get("trace", {})
        lines.append(
            f"| {name} | {a['area']:.3f} ({lo:.3f}-{hi:.3f}) | "
            f"{_fmt(a['rollouts_to_base_final_x'])} ({_fmt(rlo)}-{_fmt(rhi)}; "
            f"{_fmt(a['ratio_boot']['se'], '.3f')}) | "
            f"{_vs(a, BASE, 'area_diff')} / {_vs(a, BASE, 'ratio_diff', '+.2f')} | "
            f"{_vs(a, 'dapo-filter', 'ratio_diff', '+.2f')} | {fin[0]} | {fin[1]} | "
            f"{_fmt(t.get('zero_advantage_share'))} | "
            f"{_fmt(t.get('informative_per_1k_rollouts'), '.0f')} |"
        )
    return "\n".join(lines)


#: B3 v3's gates (b3v3.md, section 5), registered before any v3 run: (a) uniform's mean final
#: target pass@1 over the development seeds at least S + this, no source falling more than
#: `GATE_A_DROP` between evaluations; (b) oracle-topb's zero-advantage share at most this
GATE3_A_GAIN = 0.04
GATE3_B_ZERO = 0.35


def gates_v3(summary: dict[str, Any], runs_root: Path, inputs: str | None, seeds: set[int]) -> dict:
    """B3 v3's gates on the development seeds `seeds`: (a) uniform's mean final target pass@1 at
    least `GATE3_A_GAIN` above the registered start and no source of any of its runs falling more
    than `GATE_A_DROP` between evaluations; (b) `oracle-topb`'s zero-advantage share (mean over
    the seeds) at most `GATE3_B_ZERO`. A gate whose runs are not all there is absent."""
    runs = _load(runs_root, inputs, seeds)
    out: dict[str, Any] = {}
    base = runs.get(BASE, {})
    if base and set(base) >= seeds:
        finals = [base[s]["curve"][-1][METRIC] for s in sorted(seeds)]
        drops = {s: _max_drop(base[s]) for s in sorted(seeds)}
        gain = float(np.mean(finals)) - summary["start"]
        out["a"] = {
            "mean_gain": gain,
            "max_drop_by_seed": drops,
            "passed": gain >= GATE3_A_GAIN and all(d[0] <= GATE_A_DROP for d in drops.values()),
        }
    oracle = runs.get("oracle-topb", {})
    if oracle and set(oracle) >= seeds:
        share = _trace_stats([oracle[s] for s in sorted(seeds)])["zero_advantage_share"]
        out["b"] = {"zero_advantage_share": share, "passed": share <= GATE3_B_ZERO}
    return out


def judge_v3_claim(
    measure: dict[str, Any], arm: str = "stack", complete: set[int] | None = None
) -> dict[str, Any]:
    """Issue 53's target for `arm` on the registered measure: its fitted rollouts to uniform's
    final at most 0.5x uniform's, and fewer than DAPO-with-filter's, each beyond two standard
    errors (the bootstrap's); says by how much when it is not met. With `complete` (the
    registration's seeds), `passed` is None until the measure covers every one of them and both
    `arm` and dapo-filter are in it: no part of the grid is judged."""
    if complete is not None:
        short = sorted(complete - set(measure["seeds"]))
        absent = [a for a in (arm, "dapo-filter") if a not in measure["arms"]]
        if short or absent:
            return {"arm": arm, "complete": False, "missing_seeds": short,
                    "missing_arms": absent, "passed": None}  # fmt: skip
    rec = measure["arms"][arm]
    ratio, se = rec["rollouts_to_base_final_x"], rec["ratio_boot"]["se"]
    half = bool(se is not None and np.isfinite(ratio) and ratio + 2 * se <= 0.5)
    vs = rec["vs"].get("dapo-filter")
    below = bool(
        vs is not None
        and vs["ratio_diff_se"] is not None
        and np.isfinite(vs["ratio_diff"])
        and vs["ratio_diff"] + 2 * vs["ratio_diff_se"] < 0
    )
    return {
        "arm": arm,
        "ratio": ratio,
        "ratio_se": se,
        "at_most_half_beyond_2se": half,
        "short_of_half_by": None if half else ratio + 2 * (se or 0.0) - 0.5,
        "below_dapo_filter_beyond_2se": below if vs is not None else None,
        "complete": True if complete is not None else None,
        "passed": half and below,
    }


#: other_prior.py's record: the prior's Spearman with the policy's step-0 pass rates
V3_PRIOR_RECORD = Path(__file__).resolve().parent / "results" / "v3-prior" / "prior.json"


def prior_spearman(record: Path = V3_PRIOR_RECORD) -> dict[str, Any] | None:
    """The v3 prior's and v2's Spearman with the frozen policy's step-0 pass rates, overall and
    the mean inside sources (`other_prior.py`), for the v3 table; None without the record."""
    if not record.exists():
        return None
    rec = json.loads(record.read_text())
    return {name: {"overall": rec[key]["overall"], "inside sources": rec[key]["inside_sources_mean"]}
            for name, key in (("v3 (other models)", "spearman_other_models"), ("v2", "spearman_v2_prior"))
            if key in rec}  # fmt: skip
