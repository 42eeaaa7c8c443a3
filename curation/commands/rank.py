"""`codemix rank DIR --rollouts ROLLOUTS.jsonl`: difficulty from real pass rates, written into a build's shards."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import typer
from rich.console import Console
from rich.table import Table

from curation.commands import app
from curation.pipeline import reason_kind
from curation.schema import REJECTED_SCHEMA
from curation.store import (
    MANIFEST,
    PROBLEMS_DIR,
    REJECTED_DIR,
    read_manifest,
    sha256_file,
    write_json,
)
from filters.contracts import UserError
from filters.difficulty import DifficultyStage, parse_window, read_rollouts

__all__ = ["rank_command", "rank_build"]

STAGE = "rank"


def _by_source(t: pa.Table) -> Counter:
    if not t.num_rows or "source" not in t.column_names:
        return Counter()
    return Counter(s if s is not None else "?" for s in t.column("source").to_pylist())


def _next_rejected_name(rej_dir: Path) -> str:
    i = 0
    while (rej_dir / f"{STAGE}-{i:05d}.parquet").exists():
        i += 1
    return f"{STAGE}-{i:05d}.parquet"


def rank_build(
    out: str | Path,
    rollouts: str | Path,
    *,
    two_pl: bool = False,
    buckets: int = 5,
    keep_pass_rate: str | None = None,
    target_model: str | None = None,
) -> dict[str, Any]:
    """Fit difficulty from rollouts and rewrite `out/problems/*.parquet`; returns a summary.

    Rows outside the pass-rate window go to `out/rejected/rank-NNNNN.parquet`. Every file is
    written under a temporary name first; the problems directory is swapped in whole, and the
    manifest (when present) is rewritten last.
    """
    out = Path(out)
    files = sorted((out / PROBLEMS_DIR).glob("*.parquet"))
    if not files:
        raise UserError(
            f"{out / PROBLEMS_DIR} holds no parquet shards; pass the --out directory of a `codemix build`"
        )
    counts = read_rollouts(rollouts)
    window = parse_window(keep_pass_rate) if keep_pass_rate else None
    stage = DifficultyStage(
        buckets=buckets,
        rollouts=counts,
        two_pl=two_pl,
        keep_pass_rate=window,
        target_model=target_model,
    )
    for f in files:
        stage.observe(pq.read_table(f))
    stage.decide()

    tmp_dir = out / f".{PROBLEMS_DIR}.rank-tmp"
    shutil.rmtree(tmp_dir, ignore_errors=True)
    tmp_dir.mkdir(parents=True)
    kept_src: Counter = Counter()
    dropped_src: Counter = Counter()
    reasons: Counter = Counter()
    dropped_parts: list[pa.Table] = []
    shard_entries = []
    for f in files:
        res = stage.process(pq.read_table(f))
        pq.write_table(res.kept, tmp_dir / f.name, compression="zstd")
        shard_entries.append(
            {
                "file": f"{PROBLEMS_DIR}/{f.name}",
                "rows": res.kept.num_rows,
                "sha256": sha256_file(tmp_dir / f.name),
            }
        )
        kept_src += _by_source(res.kept)
        dropped_src += _by_source(res.dropped)
        if res.dropped.num_rows:
            reasons.update(reason_kind(r) for r in res.dropped.column("reject_reason").to_pylist())
            d = res.dropped.append_column(
                "reject_stage", pa.array([STAGE] * res.dropped.num_rows, type=pa.string())
            )
            for fld in REJECTED_SCHEMA:
                if fld.name not in d.column_names:
                    d = d.append_column(fld, pa.nulls(d.num_rows, fld.type))
            dropped_parts.append(d.select(REJECTED_SCHEMA.names).cast(REJECTED_SCHEMA))

    rejected_entry = None
    if dropped_parts:
        rej_dir = out / REJECTED_DIR
        rej_dir.mkdir(parents=True, exist_ok=True)
        name = _next_rejected_name(rej_dir)
        tmp = rej_dir / f".{name}.tmp"
        pq.write_table(pa.concat_tables(dropped_parts), tmp, compression="zstd")
        tmp.replace(rej_dir / name)
        rejected_entry = {
            "file": f"{REJECTED_DIR}/{name}",
            "rows": sum(t.num_rows for t in dropped_parts),
            "sha256": sha256_file(rej_dir / name),
        }

    problems_dir = out / PROBLEMS_DIR
    old_dir = out / f".{PROBLEMS_DIR}.rank-old"
    shutil.rmtree(old_dir, ignore_errors=True)
    problems_dir.replace(old_dir)
    tmp_dir.replace(problems_dir)
    shutil.rmtree(old_dir, ignore_errors=True)

    funnel = {
        "stage": STAGE,
        "in": dict(sorted((kept_src + dropped_src).items())),
        "kept": dict(sorted(kept_src.items())),
        "dropped": dict(sorted(dropped_src.items())),
        "reasons": dict(sorted(reasons.items())),
    }
    summary = {
        "config": stage.config(),
        **stage.summary,
        "funnel": funnel,
        "rollouts_file": str(rollouts),
    }
    manifest = read_manifest(out)
    if manifest is not None:
        _update_manifest(out, manifest, shard_entries, rejected_entry, funnel, stage, summary)
    return summary


def _update_manifest(
    out: Path,
    manifest: dict[str, Any],
    shards: list[dict[str, Any]],
    rejected_entry: dict[str, Any] | None,
    funnel: dict[str, Any],
    stage: DifficultyStage,
    summary: dict[str, Any],
) -> None:
    manifest["problems"] = shards
    if rejected_entry is not None:
        manifest.setdefault("rejected", []).append(rejected_entry)
    counts = manifest.setdefault("counts", {})
    counts["output"] = funnel["kept"]
    counts["rejected"] = int(counts.get("rejected", 0)) + (
        rejected_entry["rows"] if rejected_entry else 0
    )
    stages = [s for s in counts.get("stages", []) if s.get("stage") != STAGE]
    counts["stages"] = [*stages, funnel]
    manifest.setdefault("stage_config", {})[STAGE] = stage.config()
    manifest[STAGE] = {k: v for k, v in summary.items() if k != "funnel"}
    try:
        from curation.report import write_report

        write_report(out, manifest)
    except Exception as e:  # the report is a convenience; the shards and manifest are what matter
        summary["report_error"] = f"{type(e).__name__}: {e}"
    write_json(out / MANIFEST, manifest)


@app.command("rank")
def rank_command(
    out: Path = typer.Argument(..., help="A build's output directory (with problems/*.parquet)."),
    rollouts: Path = typer.Option(
        ...,
        "--rollouts",
        help="JSONL of {problem_id, model, passed, attempts} or {problem_id, model, passed: bool}.",
    ),
    model_2pl: bool = typer.Option(
        False, "--model-2pl", help="Fit a 2PL model (a discrimination per model) instead of 1PL."
    ),
    buckets: int = typer.Option(5, "--buckets", help="Number of difficulty buckets (quantiles)."),
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
    console = Console(stderr=True)
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
    console.print(t)
    src = ", ".join(f"{k}={v}" for k, v in sorted(s.get("difficulty_source", {}).items()))
    f = s["funnel"]
    console.print(f"difficulty from: {src}")
    console.print(
        f"kept {sum(f['kept'].values())}, dropped {sum(f['dropped'].values())} {f['reasons'] or ''}"
    )
    missing = (s.get("rollouts") or {}).get("problems_not_in_shards", 0)
    if missing:
        console.print(f"[yellow]{missing} problem ids in the rollouts are not in the shards[/]")
    if (Path(out) / MANIFEST).exists():
        console.print(f"updated {Path(out) / MANIFEST}; `codemix info {out}` shows the buckets")
