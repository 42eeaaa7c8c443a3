"""`codemix export DIR --format ... --out PATH`: curated sets in the formats trainers read."""

from __future__ import annotations

from pathlib import Path

import typer

from curation.commands import app, console, styled
from curation.export import FORMATS, export
from filters.contracts import UserError

__all__ = ["export_command"]


@app.command("export")
def export_command(
    build_dir: str = typer.Argument(..., help="A build's output directory, or its URI on object storage (s3://...)."),
    fmt: str = typer.Option(..., "--format", "-f", help=f"One of: {', '.join(FORMATS)}."),
    out: Path = typer.Option(..., "--out", "-o", help="Output directory: new, empty, or an earlier export of this build "
                             "in this format (replaced once the new one is complete)."),
    split: list[str] | None = typer.Option(None, "--split", help="Hold out a deterministic share, e.g. test=0.05 (once)."),
    split_by: str | None = typer.Option(None, "--split-by", help="One split per value of a column, e.g. source."),
    language: str | None = typer.Option(None, "--language", help="verl/trl: the language prompts ask for (python, cpp; cpp keeps stdio problems)."),
    force: bool = typer.Option(False, "--force", help="Replace an earlier export of another format or build at --out "
                               "(never files an export did not write)."),
) -> None:
    """Export kept problems as jsonl, parquet, a Hugging Face dataset (hf), verl parquet or a TRL dataset."""
    if split and len(split) > 1:  # one held-out share per export: a second one is not dropped silently
        raise UserError(
            f"--split is given {len(split)} times ({', '.join(split)}); pass it once: one held-out share per export"
        )
    counts = export(build_dir, fmt, out, split=split[0] if split else None, split_by=split_by, language=language,
                    force=force)  # fmt: skip
    parts = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
    console(stderr=True).print(
        styled("exported", "bold green", f"{sum(counts.values())} problems as {fmt} to {out} ({parts})")
    )
