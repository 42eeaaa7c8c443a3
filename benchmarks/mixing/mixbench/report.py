"""Aggregating runs over seeds: curves, steps to reach the uniform run's final metric, tables and plots."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np

__all__ = [
    "summarize",
    "steps_to_reach",
    "table",
    "per_source_table",
    "plot_curves",
    "plot_weights",
    "slim_runs",
    "write_json",
]


def steps_to_reach(
    steps: list[int], curve: np.ndarray, target: float, higher_better: bool
) -> float:
    """First evaluated step after the start where `curve` reaches `target` (NaN when it never does)."""
    hit = curve >= target - 1e-12 if higher_better else curve <= target + 1e-12
    hit &= np.asarray(steps) > 0
    i = np.flatnonzero(hit)
    return float(steps[i[0]]) if i.size else float("nan")


def summarize(
    runs: list[dict], metric: str, per: str, higher_better: bool, baseline: str = "uniform"
) -> dict:
    """Per arm: mean/std curves, final metric, steps to the baseline's final metric (mean curve and per seed)."""
    grouped: dict[str, list[dict]] = defaultdict(list)
    for r in runs:
        grouped[r["label"]].append(r)
    order = [baseline] if baseline in grouped else []
    by = {k: grouped[k] for k in order + [k for k in grouped if k not in order]}
    steps = runs[0]["steps"]
    curves = {
        k: np.array([r[metric] for r in sorted(v, key=lambda r: r["seed"])]) for k, v in by.items()
    }
    target = float(curves[baseline].mean(0)[-1]) if baseline in curves else float("nan")
    base_steps = (
        steps_to_reach(steps, curves[baseline].mean(0), target, higher_better)
        if baseline in curves
        else float("nan")
    )
    out: dict = {"target": target, "baseline": baseline, "steps": steps, "arms": {}}
    ref_runs = by.get(baseline) or runs
    unit = float(np.mean([r.get("step_flops", np.nan) for r in ref_runs]))  # one target step
    out["step_flops"] = unit
    base_compute = np.nan
    if baseline in by:
        base_compute = _compute_to(by[baseline], steps, base_steps, unit)["to_target"]
    for k, v in by.items():
        c = curves[k]
        mean = c.mean(0)
        s_mean = steps_to_reach(steps, mean, target, higher_better)
        per_seed = [steps_to_reach(steps, row, target, higher_better) for row in c]
        comp = _compute_to(v, steps, s_mean, unit)
        W = np.array([r["weights"] for r in v])  # seeds, steps, sources
        wmean = W.mean(0)
        T = wmean.shape[0]
        thirds = [
            wmean[: T // 3].mean(0),
            wmean[T // 3 : 2 * T // 3].mean(0),
            wmean[2 * T // 3 :].mean(0),
        ]
        per_final = np.array([r[per][-1] for r in v])
        mix = np.array([r["time_mixer_s"] for r in v])
        step_t = np.array([r["time_step_s"] for r in v])
        base_final = {r["seed"]: r[metric][-1] for r in by.get(baseline, [])}
        diffs = np.array(
            [r[metric][-1] - base_final[r["seed"]] for r in v if r["seed"] in base_final]
        )
        out["arms"][k] = {
            "seeds": len(v),
            "final_diff_vs_baseline": float(diffs.mean()) if diffs.size else float("nan"),
            "final_diff_se": float(diffs.std(ddof=1) / np.sqrt(diffs.size))
            if diffs.size > 1
            else 0.0,
            "final_mean": float(c[:, -1].mean()),
            "final_std": float(c[:, -1].std(ddof=1)) if len(v) > 1 else 0.0,
            "steps_to_target": s_mean,
            "ratio_to_baseline": s_mean / base_steps
            if np.isfinite(s_mean) and base_steps > 0
            else float("nan"),
            "compute_to_target": comp["to_target"],
            "compute_ratio_to_baseline": comp["to_target"] / base_compute
            if np.isfinite(comp["to_target"]) and base_compute > 0
            else float("nan"),
            "compute_total": comp["total"],
            "compute_proxy": comp["proxy"],
            "compute_feedback": comp["feedback"],
            "steps_to_target_per_seed": per_seed,
            "seeds_reaching_target": int(np.isfinite(per_seed).sum()),
            "curve_mean": mean.tolist(),
            "curve_std": (c.std(0, ddof=1) if len(v) > 1 else np.zeros_like(mean)).tolist(),
            "final_per_source_mean": per_final.mean(0).tolist(),
            "weights_mean_by_third": [t.tolist() for t in thirds],
            "weights_mean_curve": wmean.tolist(),
            "time_step_s": float(step_t.mean()),
            "time_mixer_s": float(mix.mean()),
            "mixer_overhead": float((mix / step_t).mean()),
            "time_sketch_s": float(np.mean([r.get("time_sketch_s", 0.0) for r in v])),
            "time_target_s": float(np.mean([r.get("time_target_s", 0.0) for r in v])),
        }
    return out


def _compute_to(runs: list[dict], steps: list[int], at_step: float, unit: float) -> dict:
    """Mean over seeds, in target steps (`unit` FLOPs): the compute spent by the evaluated step
    `at_step` (proxy runs included), the whole run's, its proxy part and its feedback part."""
    nan = float("nan")
    if not runs or "flops_curve" not in runs[0] or not np.isfinite(unit) or unit <= 0:
        return {"to_target": nan, "total": nan, "proxy": nan, "feedback": nan}
    proxy = np.array([(r.get("proxy") or {}).get("flops", 0.0) for r in runs])
    total = np.array([r["flops_total"] for r in runs]) + proxy
    feedback = np.array([r["flops_feedback"] for r in runs])
    to = nan
    if np.isfinite(at_step):
        i = list(steps).index(int(at_step))
        spent = np.array([r["flops_curve"][i] for r in runs]) + proxy
        to = float(spent.mean() / unit)
    return {
        "to_target": to,
        "total": float(total.mean() / unit),
        "proxy": float(proxy.mean() / unit),
        "feedback": float(feedback.mean() / unit),
    }


def _fmt(x: float, nd: int = 3) -> str:
    return "never" if not np.isfinite(x) else f"{x:.{nd}f}"


def table(summary: dict, metric_name: str, names: list[str], focus: list[str] | None = None) -> str:
    """A Markdown table of the summary (one row per arm): the final metric, steps and total
    compute (proxy runs and feedback passes included) to reach the baseline's final metric."""
    cols = [
        "arm",
        "seeds",
        f"final {metric_name} (mean ± sd)",
        "final - uniform (paired, ± se)",
        "steps to target (x uniform)",
        "compute to target (x uniform)",
        "seeds reaching",
        "mixer time/step",
    ]
    if focus:
        cols += [f"w[{f}] (1st/2nd/3rd third)" for f in focus]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for k, a in summary["arms"].items():
        steps = _fmt(a["steps_to_target"], 0)
        ratio = _fmt(a["ratio_to_baseline"], 2)
        comp = _fmt(a.get("compute_to_target", float("nan")), 0)
        cratio = _fmt(a.get("compute_ratio_to_baseline", float("nan")), 2)
        row = [
            k,
            str(a["seeds"]),
            f"{a['final_mean']:.4f} ± {a['final_std']:.4f}",
            f"{a['final_diff_vs_baseline']:+.4f} ± {a['final_diff_se']:.4f}",
            "never" if steps == "never" else f"{steps} ({ratio})",
            "never" if comp == "never" else f"{comp} ({cratio})",
            f"{a['seeds_reaching_target']}/{a['seeds']}",
            f"{a['time_mixer_s'] * 1e3:.2f} ms",
        ]
        for f in focus or []:
            i = names.index(f)
            row.append("/".join(f"{t[i]:.2f}" for t in a["weights_mean_by_third"]))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def per_source_table(summary: dict, names: list[str], nd: int = 3) -> str:
    """Final per-source metric, mean over seeds."""
    lines = ["| arm | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 1)]
    for k, a in summary["arms"].items():
        lines.append(
            f"| {k} | " + " | ".join(f"{x:.{nd}f}" for x in a["final_per_source_mean"]) + " |"
        )
    return "\n".join(lines)


def plot_curves(summary: dict, ylabel: str, out: Path, title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    x = np.array(summary["steps"])
    for k, a in summary["arms"].items():
        m, s = np.array(a["curve_mean"]), np.array(a["curve_std"])
        ax.plot(x, m, label=k, lw=2 if k.startswith("acodm") or k == "uniform" else 1.2)
        ax.fill_between(x, m - s, m + s, alpha=0.12)
    ax.axhline(summary["target"], color="k", ls=":", lw=1, label="uniform final")
    lo = min(min(a["curve_mean"][len(x) // 5 :]) for a in summary["arms"].values())
    hi = max(max(a["curve_mean"][len(x) // 5 :]) for a in summary["arms"].values())
    pad = (hi - lo) * 0.15 + 1e-6
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_xlabel("step")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_weights(summary: dict, names: list[str], out: Path, title: str) -> Path:
    """One panel per arm: each source's mean weight (over seeds) against steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = list(summary["arms"])
    cols = min(4, len(arms))
    rows = (len(arms) + cols - 1) // cols
    fig, axes = plt.subplots(
        rows, cols, figsize=(3.6 * cols, 2.8 * rows), sharey=True, squeeze=False
    )
    for ax, k in zip(axes.flat, arms, strict=False):
        W = np.array(summary["arms"][k]["weights_mean_curve"])
        for i, nm in enumerate(names):
            ax.plot(np.arange(1, len(W) + 1), W[:, i], label=nm, lw=1)
        ax.set_title(k, fontsize=9)
        ax.set_ylim(0, 1)
    for ax in list(axes.flat)[len(arms) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def _round(x: object, digits: int = 5) -> object:
    if isinstance(x, float):
        return float(f"{x:.{digits}g}") if np.isfinite(x) else x
    if isinstance(x, dict):
        return {k: _round(v, digits) for k, v in x.items()}
    if isinstance(x, list):
        return [_round(v, digits) for v in x]
    return x


def slim_runs(runs: list[dict], every: int) -> list[dict]:
    """Per-run records for the JSON: per-step weights kept every `every` steps (the summary has all)."""
    out = []
    for r in runs:
        r = dict(r)
        r["weights_every"] = every
        r["weights"] = r["weights"][every - 1 :: every]
        out.append(r)
    return out


def write_json(path: Path, payload: dict) -> Path:
    """The payload as JSON, floats rounded to 5 significant digits."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_round(payload), allow_nan=True))
    return path
