"""`codemix build`: sources -> stages -> shards, with progress, a summary and per-source notes."""

from __future__ import annotations

import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from curation.build import (
    DEFAULT_STAGES,
    FLAT_SETTINGS,
    STAGE_SETTINGS,
    BuildConfig,
    SourceSpec,
    build,
)
from curation.commands import app
from curation.progress import ProgressReporter
from filters.contracts import UserError
from filters.decontam_refs import DEFAULT_BENCHMARKS

__all__ = ["build_command", "parse_source_specs"]


def _default(name: str) -> Any:
    """A setting's default, for the help text: the options themselves default to "not given", so
    the defaults are those of the configuration (BuildConfig, and each stage's in filters/settings.py)."""
    if name in FLAT_SETTINGS:
        stage, setting = FLAT_SETTINGS[name]
        return getattr(STAGE_SETTINGS[stage], setting)
    return inspect.signature(BuildConfig).parameters[name].default


def parse_source_specs(values: list[str], limit: int | None) -> list[SourceSpec]:
    """`NAME`, `NAME:PATH` or a bare path, checked against the registry now (fail before any work)."""
    from curation.sources import parse_source_arg

    specs = []
    for v in values:
        src, path = parse_source_arg(v)
        specs.append(
            SourceSpec(name=src.name, path=str(Path(path).resolve()) if path else None, limit=limit)
        )
    return specs


@app.command("build")
def build_command(
    out: Path = typer.Option(
        ..., "--out", "-o", help="Output directory (created; an unfinished one is resumed)."
    ),
    source: list[str] = typer.Option(
        None,
        "--source",
        "-s",
        metavar="SOURCE",
        help="NAME, NAME:PATH or a canonical JSONL/Parquet path; repeatable. Default: the embedded demo.",
    ),
    limit: int | None = typer.Option(None, "--limit", help="Read at most N rows from each source."),
    workers: int | None = typer.Option(
        None, "--workers", "-j", help="Parallel sandbox workers (default: all cores)."
    ),
    shard_rows: int | None = typer.Option(
        None, "--shard-rows", help=f"Rows per output shard (default {_default('shard_rows')})."
    ),
    batch_rows: int | None = typer.Option(
        None,
        "--batch-rows",
        help=f"Rows per unit of work, the resume granularity (default {_default('batch_rows')}).",
    ),
    min_tests: int | None = typer.Option(
        None,
        "--min-tests",
        help=f"Drop problems with fewer tests, too_few_tests (default {_default('min_tests')}).",
    ),
    keep_incomplete_tests: bool = typer.Option(
        False,
        "--keep-incomplete-tests",
        help="Judge problems whose source says it left tests out (open-r1/codeforces), instead of "
        "dropping them as incomplete_tests: their tests may accept programs the real judge rejects.",
    ),
    dedup_threshold: float | None = typer.Option(
        None,
        "--dedup-threshold",
        help=f"Jaccard similarity that makes a duplicate (default {_default('dedup_threshold')}).",
    ),
    prefer: list[str] = typer.Option(
        None,
        "--prefer",
        metavar="SOURCE",
        help="Source to keep first in a duplicate cluster; repeatable, in order.",
    ),
    decontaminate_against: list[str] = typer.Option(
        None,
        "--decontaminate-against",
        metavar="BENCHMARK",
        help=f"Benchmark NAME ({', '.join(DEFAULT_BENCHMARKS)}, lcb: LiveCodeBench from the hub), NAME=PATH (lcb=PATH: a local file) or a canonical PATH; repeatable. "
        f"Replaces the default, every shipped benchmark ({', '.join(DEFAULT_BENCHMARKS)}), which `shipped` stands for.",
    ),
    no_decontaminate: bool = typer.Option(
        False, "--no-decontaminate", help="Do not decontaminate (drops the decontam stage)."
    ),
    lcb_start: str | None = typer.Option(
        None,
        "--lcb-start",
        help="With lcb or lcb=PATH: only LiveCodeBench problems released on or after this date (YYYY-MM-DD).",
    ),
    lcb_end: str | None = typer.Option(
        None,
        "--lcb-end",
        help="With lcb or lcb=PATH: only LiveCodeBench problems released on or before this date.",
    ),
    ngram: int | None = typer.Option(
        None,
        "--ngram",
        help=f"Word n-gram length for decontamination (default {_default('ngram')}).",
    ),
    buckets: int | None = typer.Option(
        None,
        "--buckets",
        help=f"Number of difficulty buckets, quantiles (default {_default('buckets')}).",
    ),
    skip: list[str] = typer.Option(
        None,
        "--skip",
        metavar="STAGE",
        help=f"Stage to skip; repeatable. Stages: {', '.join(DEFAULT_STAGES)}"
        " (skipping verify skips amplify too).",
    ),
    recipe: str | None = typer.Option(
        None,
        "--recipe",
        help="A recipe TOML (or a shipped one, see `codemix recipes`); it replaces --source, and stage "
        "options given on the command line override its settings.",
    ),
    executor: str = typer.Option(
        "local", "--executor", help="local, or ray (RAY_ADDRESS or a local Ray instance)."
    ),
    log_json: bool = typer.Option(
        False, "--log-json", help="Progress and the summary as JSON lines on stderr."
    ),
    progress_interval: float = typer.Option(
        30.0,
        "--progress-interval",
        help="Seconds between two plain progress lines when stderr is not a terminal.",
    ),
    force: bool = typer.Option(
        False, "--force", help="Rebuild even if OUT holds a build with another configuration."
    ),
) -> None:
    """Build a curated corpus: verify, deduplicate, decontaminate and rank problems into Parquet shards."""
    console = Console(stderr=True, soft_wrap=True, highlight=False)
    if limit is not None and limit < 1:
        raise UserError("--limit must be at least 1")
    if (shard_rows is not None and shard_rows < 1) or (batch_rows is not None and batch_rows < 1):
        raise UserError("--shard-rows and --batch-rows must be at least 1")
    if dedup_threshold is not None and not 0 < dedup_threshold <= 1:
        raise UserError("--dedup-threshold must be in (0, 1]")
    if progress_interval <= 0:
        raise UserError("--progress-interval must be a positive number of seconds")
    if no_decontaminate and decontaminate_against:
        raise UserError("pass either --decontaminate-against or --no-decontaminate, not both")
    unknown = [s for s in (skip or []) if s not in DEFAULT_STAGES]
    if unknown:
        raise UserError(
            f"unknown stage {unknown[0]!r} for --skip; stages: {', '.join(DEFAULT_STAGES)}"
        )
    # Only the options given: the defaults live with the settings (BuildConfig and the stages').
    settings: dict[str, Any] = {
        "shard_rows": shard_rows,
        "batch_rows": batch_rows,
        "min_tests": min_tests,
        "keep_incomplete_tests": True if keep_incomplete_tests else None,
        "dedup_threshold": dedup_threshold,
        "prefer": list(prefer) if prefer else None,
        "lcb_start": lcb_start,
        "lcb_end": lcb_end,
        "ngram": ngram,
        "buckets": buckets,
    }
    given: dict[str, Any] = {k: v for k, v in settings.items() if v is not None}
    if recipe:
        if source:
            raise UserError("pass either --recipe or --source, not both")
        from curation.recipe import load_recipe

        cfg = load_recipe(recipe)
        if limit is not None:
            for spec in cfg.sources:
                spec.limit = limit
        for spec in cfg.sources:
            parse_source_specs(
                [spec.name if spec.path is None else f"{spec.name}:{spec.path}"], None
            )
    else:
        specs = (
            parse_source_specs(source, limit) if source else [SourceSpec(name="demo", limit=limit)]
        )
        cfg = BuildConfig(sources=specs)
    if no_decontaminate or decontaminate_against:
        given["decontaminate_against"] = [] if no_decontaminate else list(decontaminate_against)
        if recipe:  # a recipe without benchmarks has no decontam stage: the option brings it back
            given["stages"] = [s for s in DEFAULT_STAGES if s in cfg.stages or s == "decontam"]
    cfg = cfg.updated(**given)  # the command line wins over the recipe
    if skip:  # (updated: the configuration's own rules apply, e.g. no amplify without verify)
        cfg = cfg.updated(stages=[s for s in cfg.stages if s not in skip])
        if "decontam" in skip:  # the configuration says what ran
            cfg = cfg.updated(decontaminate_against=[])
    workers = workers or os.cpu_count() or 1
    mode = "json" if log_json else ("bar" if console.is_terminal else "lines")
    try:
        with ProgressReporter(mode, interval=progress_interval) as reporter:
            result = build(
                cfg, out, workers=workers, executor=executor, force=force, progress=reporter
            )
    except KeyboardInterrupt:
        console.print(
            f"interrupted: finished units are kept in {out}/.work; rerun the same command to resume the build"
        )
        raise typer.Exit(130) from None
    failures = empty_build_errors(result.manifest)
    if log_json:
        print(json.dumps({"event": "done", "out": str(out), "already_complete": result.already_complete,
                          "resumed": result.resumed, "counts": result.manifest.get("counts"),
                          "notes": [n["line"] for n in result.manifest.get("notes", [])],
                          "errors": failures}), file=sys.stderr)  # fmt: skip
        if failures:
            raise typer.Exit(1)
        return
    if result.already_complete:
        console.print(f"{out} already holds this build; nothing to do (use --force to rebuild).")
        _fail_if_empty(console, failures)
        return
    counts = result.manifest["counts"]
    n_in, n_out = sum(counts["input"].values()), sum(counts["output"].values())
    console.print(
        f"[bold green]built[/] {out}: {n_in} problems read, {n_out} kept, {counts['rejected']} rejected"
        + (" (resumed)" if result.resumed else "")
    )
    for run in counts["stages"]:
        reasons = ", ".join(f"{k}={v}" for k, v in run["reasons"].items())
        console.print(
            f"  {run['stage']:<11} kept {sum(run['kept'].values()):>6}  dropped {sum(run['dropped'].values()):>5}"
            + (f"  ({reasons})" if reasons else "")
        )
    against = [d["name"] for d in result.manifest.get("decontamination", [])]
    console.print(f"  decontaminated against: {', '.join(against) if against else 'nothing'}")
    for note in result.manifest.get("notes", []):
        console.print(f"[bold yellow]note:[/] {note['line']}", markup=True)
    console.print(f"  see `codemix info {out}` and {out}/report/index.html")
    _fail_if_empty(console, failures)


def empty_build_errors(manifest: dict[str, Any]) -> list[str]:
    """What makes a finished build a failure for the caller (exit 1): a source none of whose rows
    fit the record schema (the wrong source type for the file, most likely), or nothing kept."""
    counts = manifest.get("counts") or {}
    read = counts.get("input") or {}
    schema = next((r for r in counts.get("stages") or [] if r.get("stage") == "schema"), None)
    errors = []
    if schema is not None:
        for src, n in sorted(read.items()):
            if n and not (schema.get("kept") or {}).get(src):
                errors.append(
                    f"source {src}: none of its {n} rows fits the record schema; is it the right "
                    "source type for the file? (`codemix sources` lists them; rejected rows name the field)"
                )
    if sum(read.values()) == 0:
        errors.append("the sources gave no rows at all")
    elif not sum((counts.get("output") or {}).values()):
        errors.append("the build kept no problems (the notes above say where they were dropped)")
    return errors


def _fail_if_empty(console: Console, errors: list[str]) -> None:
    for line in errors:
        console.print(f"[bold red]error:[/] {line}", markup=True)
    if errors:
        raise typer.Exit(1)
