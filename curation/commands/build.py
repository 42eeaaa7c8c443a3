"""`codemix build`: sources -> stages -> shards, with progress and a summary."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from curation.build import DEFAULT_STAGES, BuildConfig, SourceSpec, build
from curation.commands import app
from filters.errors import UserError

__all__ = ["build_command", "parse_source_specs", "DEMO_BENCHMARKS"]

#: The embedded demo decontaminates against HumanEval, which ships with the package.
DEMO_BENCHMARKS = ["humaneval"]


def parse_source_specs(values: list[str], limit: int | None) -> list[SourceSpec]:
    """`NAME`, `NAME:PATH` or a bare path, checked against the registry now (fail before any work)."""
    from curation.sources import parse_source_arg

    specs = []
    for v in values:
        src, path = parse_source_arg(v)
        specs.append(SourceSpec(name=src.name, path=str(Path(path).resolve()) if path else None, limit=limit))
    return specs


@app.command("build")
def build_command(
    out: Path = typer.Option(..., "--out", "-o", help="Output directory (created; an unfinished one is resumed)."),
    source: list[str] = typer.Option(
        None, "--source", "-s", help="NAME, NAME:PATH or a canonical JSONL/Parquet path; repeatable. Default: the embedded demo."
    ),
    limit: int | None = typer.Option(None, "--limit", help="Read at most N rows from each source."),
    workers: int | None = typer.Option(None, "--workers", "-j", help="Parallel sandbox workers (default: all cores)."),
    shard_rows: int = typer.Option(10_000, "--shard-rows", help="Rows per output shard."),
    batch_rows: int = typer.Option(256, "--batch-rows", help="Rows per unit of work (resume granularity)."),
    min_tests: int = typer.Option(5, "--min-tests", help="Drop problems with fewer tests (too_few_tests)."),
    dedup_threshold: float = typer.Option(0.8, "--dedup-threshold", help="Jaccard similarity that makes a duplicate."),
    prefer: list[str] = typer.Option(None, "--prefer", help="Source to keep first in a duplicate cluster; repeatable, in order."),
    decontaminate_against: list[str] = typer.Option(
        None, "--decontaminate-against", help="Benchmark NAME (humaneval, mbpp-test, lcb) or canonical PATH; repeatable."
    ),
    ngram: int = typer.Option(13, "--ngram", help="Word n-gram length for decontamination."),
    buckets: int = typer.Option(5, "--buckets", help="Number of difficulty buckets (quantiles)."),
    skip: list[str] = typer.Option(None, "--skip", help=f"Stage to skip; repeatable. Stages: {', '.join(DEFAULT_STAGES)}."),
    recipe: str | None = typer.Option(
        None, "--recipe", help="A recipe TOML (or a shipped one: demo, deepcoder); it replaces --source and the stage options."
    ),
    executor: str = typer.Option("local", "--executor", help="local, or ray (RAY_ADDRESS or a local Ray instance)."),
    log_json: bool = typer.Option(False, "--log-json", help="Progress and the summary as JSON lines on stderr."),
    force: bool = typer.Option(False, "--force", help="Rebuild even if OUT holds a build with another configuration."),
) -> None:
    """Build a curated corpus: verify, deduplicate, decontaminate and rank problems into Parquet shards."""
    console = Console(stderr=True)
    if limit is not None and limit < 1:
        raise UserError("--limit must be at least 1")
    if shard_rows < 1 or batch_rows < 1:
        raise UserError("--shard-rows and --batch-rows must be at least 1")
    if not 0 < dedup_threshold <= 1:
        raise UserError("--dedup-threshold must be in (0, 1]")
    unknown = [s for s in (skip or []) if s not in DEFAULT_STAGES]
    if unknown:
        raise UserError(f"unknown stage {unknown[0]!r} for --skip; stages: {', '.join(DEFAULT_STAGES)}")
    if recipe:
        if source:
            raise UserError("pass either --recipe or --source, not both")
        from curation.recipe import load_recipe

        cfg = load_recipe(recipe)
        if limit is not None:
            for spec in cfg.sources:
                spec.limit = limit
        for spec in cfg.sources:
            parse_source_specs([spec.name if spec.path is None else f"{spec.name}:{spec.path}"], None)
    else:
        against = list(decontaminate_against or [])
        if source:
            specs = parse_source_specs(source, limit)
        else:
            specs = [SourceSpec(name="demo", limit=limit)]
            against = against or list(DEMO_BENCHMARKS)
        cfg = BuildConfig(
            sources=specs,
            shard_rows=shard_rows,
            batch_rows=batch_rows,
            min_tests=min_tests,
            dedup_threshold=dedup_threshold,
            prefer=list(prefer or []),
            decontaminate_against=against,
            ngram=ngram,
            buckets=buckets,
        )
    if skip:
        cfg.stages = [s for s in cfg.stages if s not in skip]
    workers = workers or os.cpu_count() or 1
    with Progress(
        TextColumn("{task.description:<10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=log_json or not console.is_terminal,
        transient=False,
    ) as bar:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int | None, info: dict[str, int]) -> None:
            if log_json:
                print(json.dumps({"event": "progress", "stage": stage, "done": done, "total": total, **info}), file=sys.stderr)
                return
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total, info="")
            text = " ".join(f"{k}={v}" for k, v in info.items())
            bar.update(tasks[stage], completed=done, total=total, info=text)

        result = build(cfg, out, workers=workers, executor=executor, force=force, progress=progress)
    if log_json:
        print(json.dumps({"event": "done", "out": str(out), "already_complete": result.already_complete,
                          "resumed": result.resumed, "counts": result.manifest.get("counts")}), file=sys.stderr)
        return
    if result.already_complete:
        console.print(f"{out} already holds this build; nothing to do (use --force to rebuild).")
        return
    counts = result.manifest["counts"]
    n_in, n_out = sum(counts["input"].values()), sum(counts["output"].values())
    console.print(
        f"[bold green]built[/] {out}: {n_in} problems read, {n_out} kept, {counts['rejected']} rejected"
        + (" (resumed)" if result.resumed else "")
    )
    for run in result.manifest["counts"]["stages"]:
        reasons = ", ".join(f"{k}={v}" for k, v in run["reasons"].items())
        console.print(
            f"  {run['stage']:<11} kept {sum(run['kept'].values()):>6}  dropped {sum(run['dropped'].values()):>5}"
            + (f"  ({reasons})" if reasons else "")
        )
    console.print(f"  see `codemix info {out}` and {out}/report/index.html")
