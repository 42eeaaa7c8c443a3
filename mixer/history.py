"""Reading a mixer history log (JSONL written by `Mixer.save_history`) and plotting weights over time."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from filters.tools.figures import pyplot, save_figure

__all__ = ["load_history", "plot_history"]


def load_history(path: str | Path) -> tuple[list[str], list[dict]]:
    """(source names, per-step records) from a history JSONL; a file without a header gets names 0..n-1."""
    names: list[str] | None = None
    records: list[dict] = []
    with Path(path).open() as f:
        for line_no, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{line_no}: not JSON ({e.msg})") from e
            if "names" in rec and "weights" not in rec:
                names = list(rec["names"])
            elif "weights" in rec:
                records.append(rec)
            else:
                raise ValueError(f"{path}:{line_no}: a history line needs 'weights'")
    if names is None:
        n = len(records[0]["weights"]) if records else 0
        names = [str(i) for i in range(n)]
    return names, records


def plot_history(path: str | Path, out: str | Path, top: int = 12) -> Path:
    """Draw the weights over steps as a stacked area PNG (the `top` heaviest sources, the rest summed)."""
    plt = pyplot()
    names, recs = load_history(path)
    if not recs:
        raise ValueError(f"{path} has no steps to plot")
    steps = np.array([r.get("step", i + 1) for i, r in enumerate(recs)])
    W = np.array([r["weights"] for r in recs], dtype=np.float64)
    order = np.argsort(-W.mean(axis=0))
    keep = order[:top]
    series = [W[:, i] for i in keep]
    labels = [names[i] for i in keep]
    if len(order) > top:
        series.append(W[:, order[top:]].sum(axis=1))
        labels.append(f"other ({len(order) - top})")
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.stackplot(steps, *series, labels=labels)
    ax.set_xlabel("step")
    ax.set_ylabel("sampling weight")
    ax.set_ylim(0, 1)
    ax.set_xlim(steps.min(), steps.max())
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    ax.set_title(f"mixing weights over time ({Path(path).name})")
    return save_figure(fig, out, dpi=110)
