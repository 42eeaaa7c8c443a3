"""`codemix info DIR`: counts per source and per stage, and why rows were dropped."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from curation.commands import app
from curation.store import duckdb_views, require_build

__all__ = ["info_command"]


@app.command("info")
def info_command(out: Path = typer.Argument(..., help="A build's output directory.")) -> None:
    """Show a finished build: counts per source, the funnel per stage, reject reasons, difficulty."""
    manifest = require_build(out)
    console = Console()
    counts = manifest["counts"]
    stages = counts["stages"]
    sources = sorted(counts["input"])

    t = Table(title=f"{out}: problems per source")
    t.add_column("source")
    t.add_column("input", justify="right")
    for st in stages:
        t.add_column(f"after {st['stage']}", justify="right")
    for src in sources:
        t.add_row(src, str(counts["input"].get(src, 0)), *[str(st["kept"].get(src, 0)) for st in stages])
    t.add_row(
        "[bold]total",
        str(sum(counts["input"].values())),
        *[f"[bold]{sum(st['kept'].values())}" for st in stages],
    )
    console.print(t)

    con = duckdb_views(out)
    r = Table(title="reject reasons")
    for col in ("stage", "reason", "source", "rows"):
        r.add_column(col, justify="right" if col == "rows" else "left")
    rows = con.execute(
        """
        SELECT reject_stage, regexp_extract(reject_reason, '^[^: ]+') AS kind, source, count(*) AS n
        FROM rejected GROUP BY ALL ORDER BY reject_stage, n DESC, kind, source
        """
    ).fetchall()
    for stage, kind, src, n in rows:
        r.add_row(stage, kind, src or "?", str(n))
    if rows:
        console.print(r)
    else:
        console.print("no rejected rows")

    cols = {c[0] for c in con.execute("DESCRIBE problems").fetchall()}
    if "difficulty_bucket" in cols:
        d = Table(title="difficulty")
        for col in ("bucket", "problems", "min", "mean", "max"):
            d.add_column(col, justify="right")
        for b, n, lo, mean, hi in con.execute(
            """SELECT difficulty_bucket, count(*), min(difficulty), avg(difficulty), max(difficulty)
               FROM problems GROUP BY 1 ORDER BY 1 NULLS LAST"""
        ).fetchall():
            fmt = lambda x: "-" if x is None else f"{x:.3f}"  # noqa: E731
            d.add_row(str(b), str(n), fmt(lo), fmt(mean), fmt(hi))
        console.print(d)
    env = manifest.get("environment") or {}
    for name, e in env.items():
        console.print(f"[dim]{name} environment: {e}[/]")
