"""Calibration plot: predicted difficulty against the observed pass rate of each model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from filters.tools.figures import pyplot, save_figure

__all__ = ["calibration_points", "plot_calibration"]


def calibration_points(table: pa.Table) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """model -> (difficulty, observed pass rate, attempts) over the rows that model attempted."""
    if "difficulty" not in table.column_names or "pass_rate" not in table.column_names:
        return {}
    diff = table["difficulty"].to_pylist()
    rates = table["pass_rate"].to_pylist()
    atts = table["attempts"].to_pylist() if "attempts" in table.column_names else [None] * len(diff)
    acc: dict[str, list[tuple[float, float, float]]] = {}
    for d, pr, at in zip(diff, rates, atts):
        if d is None or not pr:
            continue
        at_map = dict(at) if at else {}
        for model, rate in pr.items() if isinstance(pr, dict) else pr:
            if rate is not None:
                acc.setdefault(model, []).append((d, rate, float(at_map.get(model, 1))))
    return {m: tuple(np.array(col) for col in zip(*v)) for m, v in sorted(acc.items())}  # type: ignore[misc]


def plot_calibration(
    table: pa.Table,
    path: str | Path,
    bins: int = 10,
    abilities: dict[str, dict[str, float]] | None = None,
) -> bool:
    """Write a PNG of observed pass rate against difficulty (points, and binned means per model).

    `table` holds the shards' `difficulty` and `pass_rate` (map model -> rate) columns, and
    optionally `attempts`. `abilities` (the `rank` summary's model -> {theta, discrimination})
    adds each model's fitted curve sigmoid(a * (theta - logit(difficulty))), dashed.
    Returns False (and writes nothing) when there are no rollouts.
    """
    pts = calibration_points(table)
    if not pts:
        return False
    fig, ax = pyplot().subplots(figsize=(6.4, 4.4))
    edges = np.linspace(0.0, 1.0, bins + 1)
    for i, (model, (d, rate, att)) in enumerate(pts.items()):
        color = f"C{i % 10}"
        ax.scatter(d, rate, s=6, alpha=0.25, color=color)
        idx = np.clip(np.digitize(d, edges) - 1, 0, bins - 1)
        xs, ys = [], []
        for b in range(bins):
            m = idx == b
            if m.any():
                xs.append(float(np.average(d[m])))
                ys.append(float(np.average(rate[m], weights=att[m])))
        ax.plot(xs, ys, marker="o", color=color, label=f"{model} ({len(d)} problems)")
        if abilities and model in abilities:
            grid = np.linspace(0.02, 0.98, 97)
            ab = abilities[model]
            z = ab.get("discrimination", 1.0) * (ab["theta"] - np.log(grid / (1 - grid)))
            ax.plot(grid, 1 / (1 + np.exp(-z)), linestyle="--", color=color, linewidth=1)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("difficulty (0 easy .. 1 hard)")
    ax.set_ylabel("observed pass rate")
    ax.set_title("Difficulty calibration")
    ax.legend(fontsize=8)
    save_figure(fig, path, dpi=110)
    return True
