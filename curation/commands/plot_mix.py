"""`codemix plot-mix LOG`: draw a mixer's sampling weights over time from its history JSONL."""

from __future__ import annotations

from pathlib import Path

import typer

from curation.commands import app, console, styled
from filters.contracts import UserError


@app.command("plot-mix")
def plot_mix(
    log: Path = typer.Argument(..., help="History JSONL written by mixer.save_history(path)."),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="PNG to write (default: LOG with .png)."
    ),
    top: int = typer.Option(12, "--top", help="Sources drawn separately; the rest are summed."),
) -> None:
    """Draw the mixing weights over training steps as a PNG."""
    from mixer.history import plot_history

    if not log.is_file():
        raise UserError(f"no such history file: {log}; write one with mixer.save_history(path)")
    target = out or log.with_suffix(".png")
    try:
        written = plot_history(log, target, top=top)
    except ValueError as e:
        raise UserError(str(e)) from e
    console().print(styled("wrote", "green", str(written)))
