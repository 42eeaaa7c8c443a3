"""`codemix info DIR`: counts per source and per stage, why rows were dropped, difficulty, notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from curation.commands import app, styled, table_console
from curation.report import difficulty_buckets, reason_rows
from curation.storage import is_uri, local_build
from curation.store import require_build
from filters.contracts import UserError

__all__ = ["info_command"]


@app.command("info")
def info_command(
    out: str = typer.Argument(..., help="A build's output directory, or its URI on object storage (s3://...)."),
) -> None:
    """Show a finished build: counts per source, the funnel per stage, reject reasons, difficulty."""
    with local_build(out) as path:
        _info(path, out if is_uri(out) else str(Path(out)))


def _info(out: Path, shown: str) -> None:
    manifest = require_build(out)
    if not isinstance(manifest.get("counts"), dict):
        raise UserError(
            f"{shown}/manifest.json is damaged: not a codemix manifest (no counts); "
            "rebuild with the build's own command and --force"
        )
    console = table_console()
    console.print(_funnel(manifest["counts"], shown))
    rows = reason_rows(out)
    console.print(_reasons(rows) if rows else "no rejected rows")
    buckets = difficulty_buckets(out)
    if buckets:
        console.print(_difficulty(buckets))
    against = [d["name"] for d in manifest.get("decontamination", [])]
    console.print(f"decontaminated against: {', '.join(against) if against else 'nothing'}")
    for note in manifest.get("notes", []):
        console.print(styled("note:", "bold yellow", note["line"]))
    env = manifest.get("environment") or {}
    if env:  # the whole of it is in the manifest; here only which stages recorded one
        console.print(Text(f"environment of {', '.join(env)}: in {shown.rstrip('/')}/manifest.json (\"environment\")", style="dim"))


def _funnel(counts: dict[str, Any], shown: str) -> Table:
    """Problems per source: read, and kept after each stage."""
    stages = counts["stages"]
    t = Table(title=f"{shown}: problems per source, kept after each stage")
    t.add_column("source", no_wrap=True)
    t.add_column("input", justify="right")
    for st in stages:
        t.add_column(st["stage"], justify="right", no_wrap=True)
    for src in sorted(counts["input"]):
        t.add_row(
            src, str(counts["input"].get(src, 0)), *[str(st["kept"].get(src, 0)) for st in stages]
        )
    t.add_row(
        *(Text(str(cell), style="bold") for cell in
          ["total", sum(counts["input"].values()), *(sum(st["kept"].values()) for st in stages)])
    )  # fmt: skip
    return t


def _reasons(rows: list[tuple[Any, ...]]) -> Table:
    """Rejected rows per stage, reason and source."""
    r = Table(title="reject reasons")
    for col in ("stage", "reason", "source", "rows"):
        r.add_column(col, justify="right" if col == "rows" else "left", no_wrap=True)
    for stage, kind, src, n, _example in rows:
        r.add_row(stage, kind, src, str(n))
    return r


def _difficulty(buckets: list[dict[str, Any]]) -> Table:
    """The difficulty buckets' sizes and ranges."""
    d = Table(title="difficulty buckets (equal-count quantiles; ties split by the feature model, then problem_id)")
    for col in ("bucket", "problems", "distinct", "min", "mean", "max"):
        d.add_column(col, justify="right", no_wrap=True)
    d.add_column("note")

    def fmt(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    for b in buckets:
        d.add_row("none" if b["bucket"] is None else str(b["bucket"]), str(b["problems"]), str(b["distinct"]),
                  fmt(b["min"]), fmt(b["mean"]), fmt(b["max"]), b["note"])  # fmt: skip
    return d
