"""A build: resolve the configuration, run the pipeline, write shards, report and manifest.

The configuration holds everything that changes the result (sources, stage parameters, output
options); runtime options such as the number of workers do not, so changing them never
invalidates a resumable build.
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from curation.executors import make_executor
from curation.ingest import ROW_COLUMN, ExactIdStage
from curation.notes import source_notes
from curation.pipeline import Pipeline, Progress, StageRun, rejected_rows
from curation.store import (
    WORK_DIR,
    clear_outputs,
    read_manifest,
    write_json,
    write_shards,
)
from filters.contracts import (
    MANIFEST,
    PROBLEMS_DIR,
    REJECTED_DIR,
    REJECTED_SCHEMA,
    SCHEMA_VERSION,
    RecordError,
    UserError,
)
from filters.decontam_refs import DEFAULT_BENCHMARKS, describe_benchmark, expand_benchmarks
from filters.stage import GlobalStage, Stage

__all__ = [
    "SourceSpec",
    "BuildConfig",
    "BuildResult",
    "build",
    "source_stream",
    "config_changes",
    "DEFAULT_STAGES",
    "OPTION_OF",
]

DEFAULT_STAGES = ("exact_id", "decontam", "verify", "dedup", "difficulty")


@dataclass
class SourceSpec:
    """One input: a registry name, an optional local path, an optional row limit."""

    name: str
    path: str | None = None
    limit: int | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class BuildConfig:
    """Everything that determines a build's output (stored in the manifest as the resolved recipe).

    Decontamination is on by default, against every benchmark shipped with codemix
    (`filters.decontam_refs.DEFAULT_BENCHMARKS`; `shipped` in the list stands for them). An empty
    `decontaminate_against` turns it off and removes `decontam` from `stages`, so the configured
    stages are the ones that run.
    """

    sources: list[SourceSpec]
    stages: list[str] = field(default_factory=lambda: list(DEFAULT_STAGES))
    shard_rows: int = 10_000
    batch_rows: int = 256
    min_tests: int = 5
    dedup_threshold: float = 0.8
    prefer: list[str] = field(default_factory=list)
    decontaminate_against: list[str] = field(default_factory=lambda: list(DEFAULT_BENCHMARKS))
    ngram: int = 13
    #: LiveCodeBench's evaluation window for `--decontaminate-against lcb=PATH` (contest_date, ISO).
    lcb_start: str | None = None
    lcb_end: str | None = None
    buckets: int = 5
    mutants: int = 8

    def __post_init__(self) -> None:
        self.decontaminate_against = expand_benchmarks(list(self.decontaminate_against))
        if not self.decontaminate_against:
            self.stages = [s for s in self.stages if s != "decontam"]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BuildConfig:
        d = dict(d)
        d["sources"] = [SourceSpec(**s) for s in d.get("sources", [])]
        return cls(**d)


@dataclass
class BuildResult:
    out: Path
    manifest: dict[str, Any]
    runs: list[StageRun]
    resumed: bool = False
    already_complete: bool = False


def source_stream(specs: list[SourceSpec]) -> Iterator[dict[str, Any] | RecordError]:
    """All sources' raw rows, one after the other, each cut at its limit."""
    from curation.sources import get_source, iter_source

    for spec in specs:
        src = get_source(spec.name)
        it = iter_source(src, spec.path, **spec.options)
        yield from itertools.islice(it, spec.limit) if spec.limit is not None else it


def make_stage(name: str, cfg: BuildConfig, workers: int | None) -> Stage:
    """One configured stage. Imports lazily: a build pays only for what it runs."""
    if name == "exact_id":
        return ExactIdStage()
    if name == "verify":
        from filters.verify import VerifyStage

        return VerifyStage(workers=workers, min_tests=cfg.min_tests, mutants=cfg.mutants)
    if name == "dedup":
        from filters.dedup import DedupStage

        return DedupStage(threshold=cfg.dedup_threshold, prefer=list(cfg.prefer))
    if name == "decontam":
        from filters.decontam import DecontamStage

        return DecontamStage(
            against=list(cfg.decontaminate_against), ngram=cfg.ngram, lcb_start=cfg.lcb_start, lcb_end=cfg.lcb_end
        )
    if name == "difficulty":
        from filters.difficulty import DifficultyStage

        return DifficultyStage(buckets=cfg.buckets)
    raise UserError(f"unknown stage {name!r}; known stages: {', '.join(DEFAULT_STAGES)}")


def make_stages(cfg: BuildConfig, workers: int | None) -> list[Stage]:
    """The configured stages, in order."""
    return [make_stage(n, cfg, workers) for n in cfg.stages]


#: BuildConfig field -> the command-line option that sets it (recipes use the field names).
OPTION_OF = {
    "sources": "--source/--limit",
    "stages": "--skip",
    "shard_rows": "--shard-rows",
    "batch_rows": "--batch-rows",
    "min_tests": "--min-tests",
    "dedup_threshold": "--dedup-threshold",
    "prefer": "--prefer",
    "decontaminate_against": "--decontaminate-against/--no-decontaminate",
    "ngram": "--ngram",
    "lcb_start": "--lcb-start",
    "lcb_end": "--lcb-end",
    "buckets": "--buckets",
    "mutants": "recipe key mutants",
}


def _short(value: Any) -> str:
    if isinstance(value, list) and value and all(isinstance(v, dict) and "name" in v for v in value):
        value = [v["name"] + (f":{v['path']}" if v.get("path") else "") + (f" (limit {v['limit']})" if v.get("limit") else "")
                 for v in value]  # fmt: skip
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text if len(text) <= 80 else text[:77] + "..."


def config_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two resolved configurations, each as `--option: old -> new`."""
    changes = []
    for key in sorted(set(old) | set(new), key=lambda k: (k not in OPTION_OF, list(OPTION_OF).index(k) if k in OPTION_OF else 0, k)):
        if old.get(key) != new.get(key):
            changes.append(f"{OPTION_OF.get(key, key)}: {_short(old.get(key))} -> {_short(new.get(key))}")
    return changes


def _prepare_out(out: Path, cfg: BuildConfig, force: bool) -> tuple[bool, bool]:
    """(resumed, already_complete). Refuses to mix configurations unless forced."""
    cfg_json = cfg.as_dict()
    manifest = read_manifest(out)
    work_cfg = out / WORK_DIR / "config.json"
    if manifest is not None:
        if manifest.get("config") == cfg_json and not force:
            return False, True
        if not force:
            changed = "; ".join(config_changes(manifest.get("config") or {}, cfg_json))
            raise UserError(
                f"{out} already holds a finished build with another configuration ({changed}); "
                "choose a new --out directory or pass --force to rebuild it"
            )
        clear_outputs(out)
    elif work_cfg.exists():
        old = json.loads(work_cfg.read_text())
        if old == cfg_json and not force:
            return True, False
        if not force:
            raise UserError(
                f"{out} holds an unfinished build with another configuration ({'; '.join(config_changes(old, cfg_json))}); "
                "rerun with the same options to resume, or pass --force to start over"
            )
        clear_outputs(out)
    elif out.exists() and any(out.iterdir()) and not force:
        raise UserError(f"{out} is not empty and holds no codemix build; choose an empty --out directory or pass --force")
    write_json(work_cfg, cfg_json)
    return False, False


def _environment(stages: list[Stage]) -> dict[str, Any]:
    """What each stage found about its surroundings, for the manifest (stages with nothing to say are left out)."""
    reports = ((s.name, s.environment()) for s in stages)
    return {name: report for name, report in reports if report is not None}


def build(
    cfg: BuildConfig,
    out: str | Path,
    *,
    workers: int | None = None,
    executor: str = "local",
    force: bool = False,
    progress: Progress | None = None,
    write_report: bool = True,
    chunk_rows: int = 32,
) -> BuildResult:
    """Run a whole build into `out`; resume it when `out` holds an unfinished one.

    `chunk_rows`: problems judged between two progress reports (a runtime option: it changes no
    result, only how often `progress` hears of a unit's work).
    """
    out = Path(out)
    if not cfg.sources:
        raise UserError("no sources given; pass --source NAME[:PATH] (see `codemix sources`)")
    resumed, complete = _prepare_out(out, cfg, force)
    if complete:
        return BuildResult(out, read_manifest(out) or {}, [], already_complete=True)
    ex = make_executor(executor, workers)
    # On Ray every task is one CPU: row stages are rebuilt there with one sandbox worker each.
    stages = make_stages(cfg, workers if ex.local else 1)
    factories = {s.name: partial(make_stage, s.name, cfg, 1) for s in stages if not isinstance(s, GlobalStage)}
    pipe = Pipeline(
        out / WORK_DIR, stages, batch_rows=cfg.batch_rows, progress=progress, executor=ex, factories=factories,
        chunk_rows=chunk_rows,
    )  # fmt: skip
    try:
        runs = pipe.run(source_stream(cfg.sources))
        manifest = _finish(out, cfg, pipe, runs, stages)
    finally:
        for s in stages:
            s.close()
        ex.close()
    if write_report:
        from curation.report import write_report as _write_report

        _write_report(out, manifest, timing={r.name: round(r.seconds, 3) for r in runs})
    write_json(out / MANIFEST, manifest)  # last: a directory with a manifest is a finished build
    shutil.rmtree(out / WORK_DIR, ignore_errors=True)
    return BuildResult(out, manifest, runs, resumed=resumed)


def _finish(out: Path, cfg: BuildConfig, pipe: Pipeline, runs: list[StageRun], stages: list[Stage]) -> dict[str, Any]:
    final_i, final_name = pipe.final_index()
    units = pipe.units(final_i, final_name)
    first = pipe.kept_unit(final_i, final_name, units[0]) if units else None
    kept_schema = pa.schema([f for f in (first.schema if first is not None else REJECTED_SCHEMA) if f.name != ROW_COLUMN])
    if first is None:
        kept_schema = pa.schema([f for f in REJECTED_SCHEMA if not f.name.startswith("reject_")])
    problems = write_shards(
        (pipe.kept_unit(final_i, final_name, u) for u in units), out / PROBLEMS_DIR, cfg.shard_rows, kept_schema
    )

    def rejected_batches() -> Iterator[pa.Table]:
        for i, name in pipe.all_stage_dirs():
            for u in pipe.units(i, name):
                t = pipe.rejected_unit(i, name, u)
                if t.num_rows:
                    yield rejected_rows(t, name)

    rejected = write_shards(rejected_batches(), out / REJECTED_DIR, cfg.shard_rows, REJECTED_SCHEMA)
    input_counts = Counter(runs[0].kept) + Counter(runs[0].dropped)
    output_counts = Counter(runs[-1].kept)
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "codemix_version": _version(),
        "config": cfg.as_dict(),
        "stage_config": {s.name: s.config() for s in stages},
        "environment": _environment(stages),
        "measured_columns": sorted({c for s in stages for c in s.measured_columns}),
        "decontamination": _decontamination(cfg, stages),
        "counts": {
            "input": dict(sorted(input_counts.items())),
            "output": dict(sorted(output_counts.items())),
            "rejected": sum(f["rows"] for f in rejected),
            "stages": [r.funnel() for r in runs],
        },
        "problems": problems,
        "rejected": rejected,
    }
    manifest["notes"] = source_notes(out, manifest)  # reads the rejected shards just written
    return manifest


def _decontamination(cfg: BuildConfig, stages: list[Stage]) -> list[dict[str, Any]]:
    """What the build was decontaminated against: each benchmark's file, sha256, licence and size."""
    stage = next((s for s in stages if s.name == "decontam"), None)
    if stage is None:
        return []
    sizes = Counter(p.benchmark for p in getattr(stage, "problems", []))
    out = []
    for spec in cfg.decontaminate_against:
        d = describe_benchmark(spec)
        d["problems"] = sizes.get(d["name"], 0)
        out.append(d)
    return out


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codemix")
    except PackageNotFoundError:
        return "0+unknown"
