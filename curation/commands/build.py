"""`codemix build`: sources -> stages -> shards, with progress, a summary and per-source notes."""

from __future__ import annotations

import inspect
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import typer
from rich.console import Console

from curation.build import DEFAULT_STAGES, STAGE_SETTINGS, BuildConfig, SourceSpec, build
from curation.commands import app, console, styled
from curation.progress import ProgressReporter
from filters.contracts import UserError
from filters.settings import FLAGS, STAGES

__all__ = ["build_command", "build_config", "print_summary", "parse_source_specs"]


def _default(name: str) -> Any:
    """A setting's default, for the help text: the options themselves default to "not given", so
    the defaults are those of the configuration (BuildConfig, and each stage's in filters/settings.py)."""
    if name in FLAGS:
        flag = FLAGS[name]
        return getattr(STAGE_SETTINGS[flag.stage], flag.setting)
    return inspect.signature(BuildConfig).parameters[name].default


def parse_source_specs(values: list[str], limit: int | None) -> list[SourceSpec]:
    """`NAME`, `NAME:PATH` or a bare path, checked against the registry now (fail before any work)."""
    from curation.sources import parse_source_arg
    from curation.storage import absolute

    specs = []
    for v in values:
        src, path = parse_source_arg(v)
        specs.append(
            SourceSpec(name=src.name, path=absolute(path) if path else None, limit=limit)
        )
    return specs


def _fixed_options() -> list[inspect.Parameter]:
    """The options that are not a stage's setting (those come from `filters.settings.FLAGS`)."""
    opt = typer.Option
    first = {
        "out": (str, opt(..., "--out", "-o", help="Output directory (created; an unfinished one is resumed), "
                         "a local path or a URI on object storage (s3://bucket/prefix, gs://...).")),
        "source": (list[str], opt(None, "--source", "-s", metavar="SOURCE",
                                  help="NAME, NAME:PATH or a canonical JSONL/Parquet path; repeatable. "
                                  "Default: the embedded demo.")),
        "limit": (int | None, opt(None, "--limit", help="Read at most N rows from each source.")),
        "workers": (int | None, opt(None, "--workers", "-j", help="Parallel sandbox workers (default: all cores).")),
        "shard_rows": (int | None, opt(None, "--shard-rows",
                                       help=f"Rows per output shard (default {_default('shard_rows')}).")),
        "batch_rows": (int | None, opt(None, "--batch-rows", help="Rows per unit of work, the resume "
                                       f"granularity (default {_default('batch_rows')}; a slow stage "
                                       "keeps every 32 rows judged).")),
        "max_record_bytes": (int | None, opt(None, "--max-record-bytes", help="A record larger than this (its "
                                             "statement, tests and solutions, in UTF-8 bytes) is rejected as "
                                             f"too_large (default {_default('max_record_bytes')}, 16 MiB).")),
    }
    last = {
        "no_decontaminate": (bool, opt(False, "--no-decontaminate",
                                       help="Do not decontaminate (drops the decontam stage).")),
        "skip": (list[str], opt(None, "--skip", metavar="STAGE",
                                help=f"Stage to skip; repeatable. Stages: {', '.join(DEFAULT_STAGES)}"
                                " (skipping verify skips amplify too).")),
        "recipe": (str | None, opt(None, "--recipe", help="A recipe TOML (or a shipped one, see `codemix "
                                   "recipes`); it replaces --source, and stage options given on the command "
                                   "line override its settings.")),
        "executor": (str, opt("local", "--executor", help="local, or ray (RAY_ADDRESS or a local Ray instance).")),
        "task_retries": (int, opt(2, "--task-retries", help="With --executor ray: how often a failed task "
                                  "(an error, a lost worker or node, a timeout) is run again before the build stops.")),
        "task_timeout": (float | None, opt(None, "--task-timeout", help="With --executor ray: seconds a task "
                                           "(one unit of one stage) may run before it is cancelled and retried.")),
        "log_json": (bool, opt(False, "--log-json", help="Progress and the summary as JSON lines on stderr.")),
        "progress_interval": (float, opt(30.0, "--progress-interval",
                                         help="Seconds between two plain progress lines when stderr is not a terminal.")),
        "force": (bool, opt(False, "--force", help="Rebuild even if OUT holds a build with another configuration.")),
    }  # fmt: skip
    kind = inspect.Parameter.KEYWORD_ONLY
    return [
        *(inspect.Parameter(n, kind, default=d, annotation=t) for n, (t, d) in first.items()),
        *_flag_options(),
        *(inspect.Parameter(n, kind, default=d, annotation=t) for n, (t, d) in last.items()),
    ]


def _flag_options() -> list[inspect.Parameter]:
    """One option per stage setting in `filters.settings.FLAGS`: `--min-tests` for `min_tests`,
    typed as the setting; "not given" by default, so the configuration's default applies."""
    params = []
    for name, flag in FLAGS.items():
        hint = get_type_hints(STAGE_SETTINGS[flag.stage])[flag.setting]
        option = "--" + name.replace("_", "-")
        if hint is bool:
            annotation: Any = bool
            default = typer.Option(False, option, help=flag.help)
        else:
            many = get_origin(hint) is tuple
            base = get_args(hint)[0] if many else next((a for a in get_args(hint) if a is not type(None)), hint)
            annotation = list[base] if many else base | None  # type: ignore[valid-type]
            shown = flag.help
            if not many and _default(name) is not None:
                shown = f"{flag.help.rstrip('.')} (default {_default(name)})."
            default = typer.Option(None, option, help=shown, metavar=flag.metavar)
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
    return params


def build_config(
    source: list[str] | None = None,
    limit: int | None = None,
    recipe: str | None = None,
    skip: list[str] | None = None,
    no_decontaminate: bool = False,
    shard_rows: int | None = None,
    batch_rows: int | None = None,
    max_record_bytes: int | None = None,
    **flags: Any,
) -> BuildConfig:
    """The configuration `codemix build` runs, from its options (None: not given), without typer:
    the embedded demo or the sources or a recipe, then the stage options (`filters.settings.FLAGS`,
    by flat name), which win over the recipe, then `--skip`. Bad values are a UserError (a stage
    setting's range is its settings class's, `filters/settings.py`, as for a recipe)."""
    unknown = sorted(set(flags) - set(FLAGS))
    if unknown:
        raise TypeError(f"build_config() got unexpected keyword argument(s) {', '.join(unknown)}")
    if limit is not None and limit < 1:
        raise UserError("--limit must be at least 1")
    if (shard_rows is not None and shard_rows < 1) or (batch_rows is not None and batch_rows < 1):
        raise UserError("--shard-rows and --batch-rows must be at least 1")
    if max_record_bytes is not None and max_record_bytes < 1:
        raise UserError(f"--max-record-bytes must be at least 1, got {max_record_bytes}")
    against = flags.pop("decontaminate_against", None)
    if no_decontaminate and against:
        raise UserError("pass either --decontaminate-against or --no-decontaminate, not both")
    unknown = [s for s in (skip or []) if s not in STAGES]
    if unknown:
        raise UserError(f"unknown stage {unknown[0]!r} for --skip; stages: {', '.join(STAGES)}")
    # Only the options given: the defaults live with the settings (BuildConfig and the stages').
    given: dict[str, Any] = {"shard_rows": shard_rows, "batch_rows": batch_rows, "max_record_bytes": max_record_bytes}
    for name, value in flags.items():  # a switch left off and an empty list are "not given"
        many = isinstance(value, (list, tuple))
        if value is not None and value is not False and not (many and not value):
            given[name] = list(value) if many else value
    given = {k: v for k, v in given.items() if v is not None}
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
    if no_decontaminate or against:
        given["decontaminate_against"] = [] if no_decontaminate else list(against)
        if recipe:  # a recipe without benchmarks has no decontam stage: the option brings it back
            given["stages"] = [s for s in STAGES if s in cfg.stages or s == "decontam"]
    cfg = cfg.updated(**given)  # the command line wins over the recipe
    if skip:  # (updated: the configuration's own rules apply, e.g. no amplify without verify)
        cfg = cfg.updated(stages=[s for s in cfg.stages if s not in skip])
        if "decontam" in skip:  # the configuration says what ran
            cfg = cfg.updated(decontaminate_against=[])
    return cfg


def build_command(
    *,
    out: str,
    workers: int | None,
    executor: str,
    log_json: bool,
    progress_interval: float,
    force: bool,
    task_retries: int = 2,
    task_timeout: float | None = None,
    **options: Any,
) -> None:
    """Build a curated corpus: verify, deduplicate, decontaminate and rank problems into Parquet shards."""
    err = console(stderr=True)
    if progress_interval <= 0:
        raise UserError("--progress-interval must be a positive number of seconds")
    cfg = build_config(**options)
    workers = workers or os.cpu_count() or 1
    mode = "json" if log_json else ("bar" if err.is_terminal else "lines")
    try:
        with ProgressReporter(mode, interval=progress_interval) as reporter:
            result = build(
                cfg, out, workers=workers, executor=executor, force=force, progress=reporter,
                task_retries=task_retries, task_timeout_s=task_timeout,
            )
    except KeyboardInterrupt:
        err.print(
            f"interrupted: finished work is kept in {out}/.work; rerun the same command to resume the build"
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
        err.print(f"{out} already holds this build; nothing to do (use --force to rebuild).")
    else:
        print_summary(err, out, result.manifest, result.resumed)
    _fail_if_empty(err, failures)


_params = _fixed_options()
build_command.__signature__ = inspect.Signature(_params)  # type: ignore[attr-defined]
build_command.__annotations__ = {p.name: p.annotation for p in _params} | {"return": None}
app.command("build")(build_command)


def print_summary(console: Console, out: Path | str, manifest: dict[str, Any], resumed: bool) -> None:
    """What a finished build did: problems read, kept and rejected, each stage's funnel, the
    benchmarks it was decontaminated against, its notes."""
    counts = manifest["counts"]
    n_in, n_out = sum(counts["input"].values()), sum(counts["output"].values())
    console.print(
        styled("built", "bold green", f"{out}: {n_in} problems read, {n_out} kept, {counts['rejected']} rejected")
        + (" (resumed)" if resumed else "")
    )
    for run in counts["stages"]:
        reasons = ", ".join(f"{k}={v}" for k, v in run["reasons"].items())
        console.print(
            f"  {run['stage']:<11} kept {sum(run['kept'].values()):>6}  dropped {sum(run['dropped'].values()):>5}"
            + (f"  ({reasons})" if reasons else "")
        )
    against = [d["name"] for d in manifest.get("decontamination", [])]
    console.print(f"  decontaminated against: {', '.join(against) if against else 'nothing'}")
    for note in manifest.get("notes", []):
        console.print(styled("note:", "bold yellow", note["line"]))
    console.print(f"  see `codemix info {shlex.quote(str(out))}` and {out}/report/index.html")


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
        console.print(styled("error:", "bold red", line))
    if errors:
        raise typer.Exit(1)
