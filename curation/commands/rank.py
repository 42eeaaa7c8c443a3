"""`codemix rank DIR --rollouts ROLLOUTS.jsonl`: difficulty from real pass rates, written into a build's shards."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from curation.commands import app, console, table_console
from curation.outlock import hold_out_lock
from curation.pipeline import rerun_stage
from curation.record_files import text_lines
from curation.storage import Loc, is_uri, local_build
from curation.store import (
    MANIFEST,
    PROBLEMS_DIR,
    REJECTED_DIR,
    REPORT_DIR,
    read_manifest,
    write_json,
)
from filters.contracts import RecordError, UserError
from filters.stages.difficulty import DifficultyConfig, RankStage, parse_window, read_rollouts

__all__ = ["rank_command", "rank_build"]

STAGE = RankStage.name


def rank_build(
    out: str | Path,
    rollouts: str | Path,
    *,
    two_pl: bool = DifficultyConfig.two_pl,
    buckets: int = DifficultyConfig.buckets,
    keep_pass_rate: str | None = None,
    target_model: str | None = None,
) -> dict[str, Any]:
    """Fit difficulty from rollouts and rewrite `out/problems/*.parquet`; returns a summary.

    Rows outside the pass-rate window go to `out/rejected/rank-NNNNN.parquet`. The pipeline reruns
    the stage on the finished build (`curation.pipeline.rerun_stage`: shards swapped in whole);
    the manifest (when present) is rewritten last.
    """
    window = parse_window(keep_pass_rate) if keep_pass_rate else None
    cfg = DifficultyConfig(
        buckets=buckets, two_pl=two_pl, keep_pass_rate=window, target_model=target_model
    )
    if is_uri(os.fspath(out)):
        return _rank_on_store(str(out), rollouts, cfg)
    return _rank_here(Path(out), rollouts, cfg)


def _rank_here(out: Path, rollouts: str | Path, cfg: DifficultyConfig) -> dict[str, Any]:
    """`rank_build` of a build in a local directory, under its lock."""
    if not any((out / PROBLEMS_DIR).glob("*.parquet")):
        raise UserError(
            f"{out / PROBLEMS_DIR} holds no parquet shards; pass the --out directory of a `codemix build`"
        )
    _check_rollouts_file(Path(rollouts))
    with hold_out_lock(out, "codemix rank writing there is refused"):
        return _rank_locked(out, rollouts, cfg)


def _rank_on_store(uri: str, rollouts: str | Path, cfg: DifficultyConfig) -> dict[str, Any]:
    """`rank_build` of a build on object storage: ranked in a local copy while the prefix's lock
    is held (`curation.objectlock`), then the copy's shards, rejected files and report uploaded,
    the manifest written, and only then the files the rerun no longer has removed. A shard the rerun
    rewrites under the same name is replaced in place (object storage has no rename): a crash
    between two uploads leaves the old manifest beside some new shards."""
    from curation.objectlock import hold_object_lock

    loc = Loc.of(uri)
    _check_rollouts_file(Path(rollouts))
    with hold_object_lock(loc, "codemix rank writing there is refused"), local_build(uri) as copy:
        summary = _rank_here(copy, rollouts, cfg)
        stale: list[Loc] = []
        for name in (PROBLEMS_DIR, REJECTED_DIR, REPORT_DIR):
            if not (copy / name).is_dir():
                continue
            (loc / name).upload(copy / name)
            now = {
                p.relative_to(copy / name).as_posix()
                for p in (copy / name).rglob("*")
                if p.is_file()
            }
            stale += [
                old
                for old in _files(loc / name)
                if old.path[len((loc / name).path) + 1 :] not in now
            ]
        if (copy / MANIFEST).is_file():
            (loc / MANIFEST).write_bytes_atomic((copy / MANIFEST).read_bytes())
        for old in stale:  # after the manifest: a crash before it leaves every file it names
            old.unlink(missing_ok=True)
    summary["rollouts_file"] = str(rollouts)
    return summary


def _files(d: Loc) -> list[Loc]:
    """Every file under a directory on object storage."""
    import pyarrow.fs as pafs

    assert d.fs is not None
    infos = d.fs.get_file_info(pafs.FileSelector(d.path, recursive=True, allow_not_found=True))
    return [
        Loc(d.fs, i.path, f"{d.uri}{i.path[len(d.path) :]}")
        for i in infos
        if i.type == pafs.FileType.File
    ]


def _check_rollouts_file(path: Path) -> None:
    """One line, naming the file and line, for a rollouts file that cannot be read: not UTF-8, a
    compressed file cut short, JSON a reader cannot take (the rest is `read_rollouts`' to say)."""
    if not path.is_file():
        return  # read_rollouts says so
    for lineno, line in text_lines(path):
        if isinstance(line, RecordError):
            raise UserError(f"{line.message}; expected {{problem_id, model, passed}} lines")
        if not line.strip():
            continue
        try:
            json.loads(line)
        except json.JSONDecodeError as e:
            raise UserError(
                f"{path}:{lineno}: not valid JSON ({e}); expected {{problem_id, model, passed}}"
            ) from None
        except (ValueError, RecursionError) as e:
            raise UserError(
                f"{path}:{lineno}: not readable JSON ({e or 'nested too deeply'})"
            ) from None


def _rank_locked(out: Path, rollouts: str | Path, cfg: DifficultyConfig) -> dict[str, Any]:
    stage = RankStage(cfg, rollouts=read_rollouts(rollouts))
    rerun = rerun_stage(out, stage)
    funnel = {k: v for k, v in rerun.run.funnel().items() if k != "reasons_by_source"}
    summary = {
        "config": stage.config(),
        **stage.summary,
        "funnel": funnel,
        "rollouts_file": str(rollouts),
    }
    manifest = read_manifest(out)
    if manifest is not None:
        rerun.update_manifest(manifest, stage)
        manifest[STAGE] = {k: v for k, v in summary.items() if k != "funnel"}
        try:
            from curation.report import write_report

            write_report(out, manifest)
        except (
            Exception
        ) as e:  # the report is a convenience; the shards and manifest are what matter
            summary["report_error"] = f"{type(e).__name__}: {e}"
        write_json(out / MANIFEST, manifest)
    return summary


@app.command("rank")
def rank_command(
    out: str = typer.Argument(
        ...,
        help="A build's output directory (with problems/*.parquet), or its URI on object storage (s3://...).",
    ),
    rollouts: Path = typer.Option(
        ...,
        "--rollouts",
        help="JSONL of {problem_id, model, passed, attempts} or {problem_id, model, passed: bool}.",
    ),
    model_2pl: bool = typer.Option(
        False, "--model-2pl", help="Fit a 2PL model (a discrimination per model) instead of 1PL."
    ),
    buckets: int = typer.Option(
        DifficultyConfig.buckets, "--buckets", help="Number of difficulty buckets (quantiles)."
    ),
    keep_pass_rate: str | None = typer.Option(
        None,
        "--keep-pass-rate",
        help="LO:HI; drop problems whose pass rate for --target-model is outside.",
    ),
    target_model: str | None = typer.Option(
        None,
        "--target-model",
        help="Model the pass-rate window applies to (default: the only one).",
    ),
) -> None:
    """Fit difficulty from model pass rates (item-response model) and write it into the shards."""
    err = console(stderr=True)
    s = rank_build(
        out,
        rollouts,
        two_pl=model_2pl,
        buckets=buckets,
        keep_pass_rate=keep_pass_rate,
        target_model=target_model,
    )
    t = Table(title="abilities (logit scale)")
    for col in ("model", "theta", "± std", "discrimination"):
        t.add_column(col, justify="left" if col == "model" else "right")
    for m, a in (s.get("abilities") or {}).items():
        t.add_row(m, f"{a['theta']:.3f}", f"{a['theta_std']:.3f}", f"{a['discrimination']:.3f}")
    table_console(stderr=True).print(t)
    src = ", ".join(f"{k}={v}" for k, v in sorted(s.get("difficulty_source", {}).items()))
    f = s["funnel"]
    err.print(f"difficulty from: {src}")
    err.print(
        f"kept {sum(f['kept'].values())}, dropped {sum(f['dropped'].values())} {f['reasons'] or ''}"
    )
    missing = (s.get("rollouts") or {}).get("problems_not_in_shards", 0)
    if missing:
        err.print(
            Text(f"{missing} problem ids in the rollouts are not in the shards", style="yellow")
        )
    if is_uri(out) or (Path(out) / MANIFEST).exists():
        shown = f"{out.rstrip('/')}/{MANIFEST}" if is_uri(out) else str(Path(out) / MANIFEST)
        err.print(f"updated {shown}; `codemix info {shlex.quote(str(out))}` shows the buckets")
