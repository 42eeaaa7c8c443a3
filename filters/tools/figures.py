"""Figures drawn off screen: matplotlib's Agg backend, loaded only when a figure is drawn (the
build report, the difficulty calibration plot, a mixer's weights over time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["pyplot", "save_figure"]


def pyplot() -> Any:
    """`matplotlib.pyplot` on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | Path, dpi: float | None = None) -> Path:
    """Lay out `fig`, write it to `path` (its folder made; `dpi` None: the figure's own) and close
    it; the path written."""
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path
