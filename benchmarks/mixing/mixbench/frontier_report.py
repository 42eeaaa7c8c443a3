"""Summaries of the frontier benchmark: steps and rollouts to uniform's final pass rate, zero-advantage
share, discarded rollouts; a Markdown table."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from mixbench.report import steps_to_reach, summarize

__all__ = ["summarize_rollouts", "rollout_table"]


def _reach(x: np.ndarray, curve: np.ndarray, target: float, steps: list[int]) -> float:
    """x at the first evaluated step after the start where `curve` reaches `target` (NaN: never)."""
    hit = (curve >= target - 1e-12) & (np.asarray(steps) > 0)
    i = np.flatnonzero(hit)
    return float(x[i[0]]) if i.size else float("nan")


def _at_budget(x: np.ndarray, curve: np.ndarray, budget: float) -> float:
    """The curve at the last evaluation whose cumulative rollouts `x` are within `budget`."""
    i = np.flatnonzero(x <= budget + 1e-9)
    return float(curve[i[-1]]) if i.size else float("nan")


def summarize_rollouts(runs: list[dict], baseline: str = "uniform") -> dict:
    """`summarize` (steps, finals, weights) plus, per arm, rollouts to the baseline's final pass rate
    (mean curve against mean cumulative rollouts, and per seed), zero-advantage and discarded shares."""
    out = summarize(runs, "pass_rate", "pass_rate_source", higher_better=True, baseline=baseline)
    grouped: dict[str, list[dict]] = defaultdict(list)
    for r in runs:
        grouped[r["label"]].append(r)
    steps = out["steps"]
    target = out["target"]
    base_ro = float("nan")
    for k in [baseline] + [k for k in grouped if k != baseline]:
        if k not in grouped:
            continue
        v = sorted(grouped[k], key=lambda r: r["seed"])
        curves = np.array([r["pass_rate"] for r in v])
        ro = np.array([r["rollouts_at"] for r in v], dtype=np.float64)
        mean_curve, mean_ro = curves.mean(0), ro.mean(0)
        reach = _reach(mean_ro, mean_curve, target, steps)
        per_seed = [_reach(ro[i], curves[i], target, steps) for i in range(len(v))]
        if k == baseline:
            base_ro = reach
        groups = sum(sum(r["per_step"]["groups"]) for r in v)
        zero = sum(sum(r["per_step"]["zero_groups"]) for r in v)
        gen = sum(r["ledger"]["rollouts"] for r in v)
        disc = sum(r["ledger"]["discarded_rollouts"] for r in v)
        half = 0.5 * float(np.mean([r["rollouts_at"][-1] for r in grouped.get(baseline, v)]))
        at_half = np.array([_at_budget(ro[i], curves[i], half) for i in range(len(v))])
        base_final = {r["seed"]: r["pass_rate"][-1] for r in grouped.get(baseline, [])}
        gap = np.array(
            [at_half[i] - base_final[r["seed"]] for i, r in enumerate(v) if r["seed"] in base_final]
        )
        a = out["arms"][k]
        a.update(
            pass_at_half_budget=float(np.nanmean(at_half)),
            at_half_minus_target=float(np.nanmean(gap)) if gap.size else float("nan"),
            at_half_minus_target_se=float(np.nanstd(gap, ddof=1) / np.sqrt(gap.size))
            if gap.size > 1
            else 0.0,
            rollouts_to_target=reach,
            rollouts_ratio=reach / base_ro if np.isfinite(reach) and base_ro > 0 else float("nan"),
            rollouts_to_target_per_seed=per_seed,
            rollouts_total_mean=float(ro[:, -1].mean()),
            rollouts_per_step=float(ro[:, -1].mean() / max(steps[-1], 1)),
            zero_advantage_share=zero / max(groups, 1),
            discarded_share=disc / max(gen, 1),
            rounds_per_step=float(np.mean([np.mean(r["per_step"]["rounds"]) for r in v])),
            skipped_prompts=float(np.mean([r["ledger"]["skipped_prompts"] for r in v])),
            scored_per_step=float(
                np.mean([r["ledger"].get("scored_prompts", 0) / max(steps[-1], 1) for r in v])
            ),
            signal_spearman=float(np.mean([r["signal_spearman"] for r in v]))
            if all("signal_spearman" in r for r in v)
            else float("nan"),
            rollout_curve_mean=mean_ro.tolist(),
        )
    out["rollouts_baseline"] = base_ro
    out["steps_baseline"] = (
        steps_to_reach(steps, np.array(out["arms"][baseline]["curve_mean"]), target, True)
        if baseline in out["arms"]
        else float("nan")
    )
    return out


def _f(x: float, fmt: str) -> str:
    return "never" if not np.isfinite(x) else format(x, fmt)


def rollout_table(summary: dict) -> str:
    """One row per arm: final pass rate, steps and rollouts to target (and x uniform), zero share."""
    cols = [
        "arm",
        "seeds",
        "final pass rate (mean ± sd)",
        "final - uniform (paired ± se)",
        "steps to target",
        "x uniform",
        "rollouts to target",
        "x uniform",
        "seeds reaching",
        "zero-adv groups",
        "discarded rollouts",
        "pass at half uniform's rollouts - uniform final (paired ± se)",
        "rollouts/step",
        "scored/step",
        "signal Spearman",
        "sampler ms/step",
    ]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for k, a in summary["arms"].items():
        lines.append(
            "| "
            + " | ".join(
                [
                    k,
                    str(a["seeds"]),
                    f"{a['final_mean']:.4f} ± {a['final_std']:.4f}",
                    f"{a['final_diff_vs_baseline']:+.4f} ± {a['final_diff_se']:.4f}",
                    _f(a["steps_to_target"], ".0f"),
                    _f(a["ratio_to_baseline"], ".2f"),
                    _f(a["rollouts_to_target"], ",.0f"),
                    _f(a["rollouts_ratio"], ".2f"),
                    f"{a['seeds_reaching_target']}/{a['seeds']}",
                    f"{a['zero_advantage_share']:.2f}",
                    f"{a['discarded_share']:.2f}",
                    f"{a['at_half_minus_target']:+.4f} ± {a['at_half_minus_target_se']:.4f}",
                    f"{a['rollouts_per_step']:,.0f}",
                    f"{a['scored_per_step']:,.0f}",
                    _f(a["signal_spearman"], ".3f").replace("never", "-"),
                    f"{a['time_mixer_s'] * 1e3:.1f}",
                ]
            )
            + " |"
        )
    return "\n".join(lines)
