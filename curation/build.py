"""A build: resolve the configuration, run the pipeline, write shards, report and manifest.

The configuration holds everything that changes the result (sources, stage parameters, output
options); runtime options such as the number of workers do not, so changing them never
invalidates a resumable build.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from curation.decontam_hub import hub_benchmark
from curation.executors import make_executor
from curation.ingest import MAX_RECORD_BYTES, ROW_COLUMN
from curation.notes import source_notes
from curation.outlock import LOCK_FILE, hold_out_lock
from curation.pipeline import Pipeline, Progress, StageRun, finished_units
from curation.storage import Loc, as_loc, is_uri
from curation.store import (
    REPORT_DIR,
    WORK_DIR,
    clear_outputs,
    read_manifest,
    write_json,
    write_shards,
)
from filters.contracts import (
    MANIFEST,
    PROBLEM_ID,
    PROBLEMS_DIR,
    REJECTED_DIR,
    REJECTED_SCHEMA,
    SCHEMA_VERSION,
    RecordError,
    UserError,
)
from filters.settings import (
    DEFAULT_STAGES,
    FLAT_SETTINGS,
    STAGE_SETTINGS,
    STAGES,
    AmplifyConfig,
    DecontamConfig,
    DedupConfig,
    DifficultyConfig,
    VerifyConfig,
)
from filters.stage import GlobalStage, Stage
from filters.stages.decontam.references import describe_benchmark, expand_benchmarks

__all__ = [
    "SourceSpec",
    "BuildConfig",
    "BuildResult",
    "build",
    "source_stream",
    "config_changes",
    "DEFAULT_STAGES",
    "OPTION_OF",
    "FLAT_SETTINGS",
    "STAGE_SETTINGS",
]


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

    Each stage's settings are nested, in the stage's own settings class (`filters/settings.py`,
    where every default lives), under the stage's name: `decontam`, `amplify`, `verify`, `dedup`,
    `difficulty`; a stage registered in `filters.settings.STAGES` beyond these keeps its settings
    in `extra` (stage name -> settings object; `settings_of(name)` reads either).
    Decontamination is on by default, against every benchmark shipped with codemix (`shipped` in
    `decontam.against` stands for them); an empty `against` turns it off and removes `decontam`
    from `stages`; without `verify`, `amplify` (which strengthens suites for verify's decision) is
    removed too. So the configured stages are the ones that run. `max_record_bytes` (16 MiB,
    `--max-record-bytes`): a record whose text is larger is rejected as `too_large` at ingestion,
    before any stage.
    """

    sources: list[SourceSpec]
    stages: list[str] = field(default_factory=lambda: list(STAGES))
    shard_rows: int = 10_000
    batch_rows: int = 256
    max_record_bytes: int = MAX_RECORD_BYTES
    decontam: DecontamConfig = field(default_factory=DecontamConfig)
    amplify: AmplifyConfig = field(default_factory=AmplifyConfig)
    verify: VerifyConfig = field(default_factory=VerifyConfig)
    dedup: DedupConfig = field(default_factory=DedupConfig)
    difficulty: DifficultyConfig = field(default_factory=DifficultyConfig)
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.stages = list(self.stages)
        self.extra = dict(self.extra)
        unknown = sorted(set(self.extra) - (set(STAGE_SETTINGS) - _OWN_FIELDS))
        if unknown:
            raise TypeError(
                f"BuildConfig(extra=...) names no registered stage of its own: {', '.join(unknown)}"
            )
        for stage, settings_class in STAGE_SETTINGS.items():
            given = self.settings_of(stage)
            if given is None:
                given = settings_class()
            elif not isinstance(given, settings_class):
                raise TypeError(
                    f"BuildConfig({stage}=...) takes {settings_class.__name__}, got {type(given).__name__}"
                )
            # a copy: a configuration never shares its settings with another
            self._set_settings(stage, replace(given))
        self.dedup.prefer = tuple(self.dedup.prefer)
        self.decontam.against = tuple(expand_benchmarks(list(self.decontam.against)))
        if not self.decontam.against:
            self.stages = [s for s in self.stages if s != "decontam"]
        if "verify" not in self.stages:  # amplify strengthens suites for verify's decision only
            self.stages = [s for s in self.stages if s != "amplify"]

    def settings_of(self, stage: str) -> Any:
        """A stage's settings object: its field, or its entry in `extra` (None if it has none)."""
        return getattr(self, stage) if stage in _OWN_FIELDS else self.extra.get(stage)

    def _set_settings(self, stage: str, settings: Any) -> None:
        if stage in _OWN_FIELDS:
            setattr(self, stage, settings)
        else:
            self.extra[stage] = settings

    @classmethod
    def with_settings(
        cls, sources: list[SourceSpec], settings: dict[str, Any], **fields: Any
    ) -> BuildConfig:
        """A configuration from stage name -> settings object, each put in its field or in `extra`."""
        own = {k: v for k, v in settings.items() if k in _OWN_FIELDS}
        extra = {k: v for k, v in settings.items() if k not in _OWN_FIELDS}
        return cls(sources=sources, **fields, **own, extra=extra)

    def updated(self, **changes: Any) -> BuildConfig:
        """A copy with some fields changed (`shard_rows=`, `stages=`, `verify=`, a registered
        stage's settings by its name), or a stage's setting by its command-line name (`min_tests=`,
        `buckets=`: `FLAT_SETTINGS`)."""
        flat = {k: changes.pop(k) for k in list(changes) if k in FLAT_SETTINGS}
        extra = {k: changes.pop(k) for k in list(changes) if k in self.extra}
        new = replace(self, **changes, extra={**self.extra, **extra})
        for name, value in flat.items():
            stage, setting = FLAT_SETTINGS[name]
            setattr(new.settings_of(stage), setting, value)
        # normalised and checked again: `shipped` expanded, no decontam stage without benchmarks
        return replace(new)

    def as_dict(self) -> dict[str, Any]:
        """The configuration as JSON data (tuples as lists), as the manifest stores it: each
        stage's settings under the stage's name."""
        whole = asdict(self)
        data = {k: whole[k] for k in _BUILD_FIELDS}
        data.update({stage: asdict(self.settings_of(stage)) for stage in STAGE_SETTINGS})
        return json.loads(json.dumps(data))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BuildConfig:
        """A configuration from `as_dict()`'s data."""
        d = dict(d)
        sources = [SourceSpec(**s) for s in d.pop("sources", [])]
        settings = {stage: settings_class(**(d.pop(stage, None) or {}))
                    for stage, settings_class in STAGE_SETTINGS.items()}  # fmt: skip
        return cls.with_settings(sources, settings, **d)


#: `BuildConfig`'s own fields, and the stages whose settings are fields of it (the others' are in
#: its `extra`).
_BUILD_FIELDS = ("sources", "stages", "shard_rows", "batch_rows", "max_record_bytes")
_OWN_FIELDS = frozenset(f.name for f in fields(BuildConfig)) - {*_BUILD_FIELDS, "extra"}


@dataclass
class BuildResult:
    #: the output directory (absolute), or its URI on object storage
    out: Path | str
    manifest: dict[str, Any]
    runs: list[StageRun]
    resumed: bool = False
    already_complete: bool = False


def source_stream(specs: list[SourceSpec]) -> Iterator[dict[str, Any] | RecordError]:
    """All sources' raw rows, one after the other, each cut at its limit."""
    from curation.sources import get_source, iter_source

    for spec in specs:
        src = get_source(spec.name)
        if spec.path is not None and is_uri(spec.path):  # object storage: read from a local copy
            with tempfile.TemporaryDirectory(prefix="codemix-source-") as tmp:
                local = Loc.of(spec.path).download(Path(tmp) / "data")
                it = iter_source(src, str(local), **spec.options)
                yield from itertools.islice(it, spec.limit) if spec.limit is not None else it
            continue
        it = iter_source(src, spec.path, **spec.options)
        yield from itertools.islice(it, spec.limit) if spec.limit is not None else it


def _amplify_settings(cfg: BuildConfig) -> tuple[Any, dict[str, Any]]:
    # a suite grows to at least what verify asks for
    target = max(cfg.amplify.target_tests, cfg.verify.min_tests)
    return replace(cfg.amplify, target_tests=target), {}


def _decontam_settings(cfg: BuildConfig) -> tuple[Any, dict[str, Any]]:
    from curation.decontam_hub import hub_problems

    d = cfg.decontam  # a bare `lcb` is LiveCodeBench's window, read from the hub
    return d, {"problems": hub_problems(d.against, d.lcb_start, d.lcb_end)}


#: What a stage takes from the rest of the build besides its own settings: a rule across stages,
#: an input only `curation` can load (the hub). Most stages need none.
_FROM_BUILD = {"amplify": _amplify_settings, "decontam": _decontam_settings}


def make_stage(name: str, cfg: BuildConfig, workers: int | None) -> Stage:
    """One configured stage, from the registry (`filters.settings.STAGES`): its class, imported
    only now (a build pays only for what it runs), made from its settings in `cfg`."""
    return stage_factory(name, cfg, workers)()


def stage_factory(name: str, cfg: BuildConfig, workers: int | None) -> partial[Stage]:
    """What makes one configured stage, with all it takes from the build (decontam's references
    read from the hub) resolved now, once: a build on a cluster sends it to every task, which
    makes its stage without reading the hub again."""
    entry = STAGES.get(name)
    if entry is None:
        raise UserError(f"unknown stage {name!r}; known stages: {', '.join(STAGES)}")
    settings = cfg.settings_of(name)
    extra: dict[str, Any] = {}
    if name in _FROM_BUILD:
        settings, extra = _FROM_BUILD[name](cfg)
    return partial(_made, name, settings, extra, workers=workers)


def _made(name: str, settings: Any, extra: dict[str, Any], *, workers: int | None) -> Stage:
    # `workers` a keyword: a task holding several CPUs calls the factory with `workers=` its CPUs
    return STAGES[name].load().from_settings(settings, workers=workers, **extra)


def make_stages(cfg: BuildConfig, workers: int | None) -> list[Stage]:
    """The configured stages, in order."""
    return [make_stage(n, cfg, workers) for n in cfg.stages]


#: A configuration's key (a stage's setting as `stage.setting`) -> the command-line option that sets
#: it; recipes use the keys (a stage's settings in its own table, `[build.verify]`).
OPTION_OF = {
    "sources": "--source/--limit",
    "stages": "--skip",
    "shard_rows": "--shard-rows",
    "batch_rows": "--batch-rows",
    "max_record_bytes": "--max-record-bytes",
    **{
        f"{stage}.{setting}": f"--{name.replace('_', '-')}"
        for name, (stage, setting) in FLAT_SETTINGS.items()
    },
    "decontam.against": "--decontaminate-against/--no-decontaminate",
}


def _short(value: Any) -> str:
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, dict) and "name" in v for v in value)
    ):
        value = [v["name"] + (f":{v['path']}" if v.get("path") else "") + (f" (limit {v['limit']})" if v.get("limit") else "")
                 for v in value]  # fmt: skip
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text if len(text) <= 80 else text[:77] + "..."


def _flat(config: dict[str, Any]) -> dict[str, Any]:
    """A configuration with each stage's settings as `stage.setting` keys."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        if key in STAGE_SETTINGS and isinstance(value, dict):
            out.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            out[key] = value
    return out


def config_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two resolved configurations, each as `--option: old -> new`."""
    old, new = _flat(old), _flat(new)
    order = list(OPTION_OF)
    changes = []
    for key in sorted(
        set(old) | set(new),
        key=lambda k: (k not in OPTION_OF, order.index(k) if k in OPTION_OF else 0, k),
    ):
        if old.get(key) != new.get(key):
            changes.append(
                f"{OPTION_OF.get(key, key)}: {_short(old.get(key))} -> {_short(new.get(key))}"
            )
    return changes


def _empty_but_leftovers(out: Loc) -> bool:
    """Whether `out` holds nothing but what a build killed at its very start leaves: the lock file
    and a `.work` without a configuration or a finished unit."""
    for p in out.iterdir():
        if p.name == LOCK_FILE:
            continue
        work = p.name == WORK_DIR and p.is_dir()
        if work and not (p / "config.json").exists() and not finished_units(p):
            continue
        return False
    return True


def _prepare_out(out: Loc, cfg: BuildConfig, force: bool) -> tuple[bool, bool]:
    """(resumed, already_complete). Refuses to mix configurations unless forced."""
    cfg_json = cfg.as_dict()
    manifest = read_manifest(out)
    work_cfg = out / WORK_DIR / "config.json"
    if manifest is not None:
        stored = manifest.get("config") or {}
        if stored == cfg_json and not force:
            return False, True
        if not force:
            changed = "; ".join(config_changes(stored, cfg_json))
            raise UserError(
                f"{out} already holds a finished build with another configuration ({changed}); "
                "choose a new --out directory or pass --force to rebuild it"
            )
        clear_outputs(out)
    elif work_cfg.exists():
        old = json.loads(work_cfg.read_text())
        if old == cfg_json and not force:
            return True, False
        if not force and finished_units(out / WORK_DIR):  # none finished: nothing to lose
            raise UserError(
                f"{out} holds an unfinished build with another configuration ({'; '.join(config_changes(old, cfg_json))}); "
                "rerun with the same options to resume, or pass --force to start over"
            )
        clear_outputs(out)
    elif out.exists() and not _empty_but_leftovers(out):
        if not force:
            raise UserError(
                f"{out} is not empty and holds no codemix build; choose an empty --out directory or pass --force"
            )
    else:  # a build killed before it wrote its configuration left a bare .work: nothing to keep
        (out / WORK_DIR).rmtree()
    write_json(work_cfg, cfg_json)
    return False, False


def _environment(
    stages: list[Stage], remote: dict[str, list[dict[str, Any]]] | None = None
) -> dict[str, Any]:
    """What each stage found about its surroundings, for the manifest (stages with nothing to say
    are left out). A stage that ran in tasks elsewhere (`remote`: each task's report) is reported
    by its weakest one (`weakest`), with the number of tasks that reported."""
    remote = remote or {}
    out: dict[str, Any] = {}
    for s in stages:
        if remote.get(s.name):
            out[s.name] = weakest(remote[s.name])
            continue
        report = s.environment()
        if report is not None:
            out[s.name] = report
    return out


def _strength(report: dict[str, Any]) -> int:
    """How many protections a report says are in force (its true flags, nested ones included)."""
    n = 0
    for value in report.values():
        if isinstance(value, dict):
            n += _strength(value)
        elif value is True:
            n += 1
    return n


def weakest(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Of the environments tasks reported for one stage, the one with the fewest protections in
    force (a worker without namespaces shows, whichever node it was), and how many tasks reported."""
    worst = min(reports, key=_strength)
    return {**worst, "tasks_reporting": len(reports)}


def _measured_reasons(stages: list[Stage]) -> dict[str, str]:
    """Why each measured column differs between two runs of the same build (`measured_columns`),
    from the stages that declare it; a column a stage declares without a reason says so."""
    out: dict[str, str] = {}
    for s in stages:
        for c in s.measured_columns:
            out.setdefault(c, s.measured_reasons.get(c) or f"declared measured by {s.name}")
    return dict(sorted(out.items()))


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
    task_retries: int = 2,
    task_timeout_s: float | None = None,
) -> BuildResult:
    """Run a whole build into `out`, a local directory or a URI on object storage
    (`curation.storage`); resume it when `out` holds an unfinished one.

    `chunk_rows`: problems judged between two progress reports (a runtime option: it changes no
    result, only how often `progress` hears of a unit's work). `task_retries` and
    `task_timeout_s`: how often a failed task is run again, and how long one may run, on an
    executor that runs tasks elsewhere (`curation.executors.RayExecutor`).
    """
    if not cfg.sources:
        raise UserError("no sources given; pass --source NAME[:PATH] (see `codemix sources`)")
    loc = as_loc(out)  # absolute: a task on another node resolves no relative path
    run = partial(_build_locked, cfg, workers=workers, executor=executor, force=force, progress=progress,
                  write_report=write_report, chunk_rows=chunk_rows, task_retries=task_retries,
                  task_timeout_s=task_timeout_s)  # fmt: skip
    if not loc.local:
        # On S3 the prefix is locked by a conditional-create object (`curation.objectlock`). The
        # shards, notes and report are written to a local staging directory, uploaded before the manifest.
        from curation.objectlock import hold_object_lock

        staged = Path(tempfile.mkdtemp(prefix="codemix-out-"))
        try:
            with hold_object_lock(loc):
                return run(loc, staged, loc.uri)
        finally:
            shutil.rmtree(staged, ignore_errors=True)
    path = loc.as_path()
    created = _make_out(path)
    try:
        with hold_out_lock(path):
            return run(loc, path, path)
    finally:  # a start that finished nothing leaves nothing behind, not even the directory
        if created and path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def _make_out(out: Path) -> bool:
    """Create `out` (and its parents) if need be; whether it was created. One line for a path that
    cannot be a build's directory: a file, a directory that cannot be created or written."""
    if out.exists() and not out.is_dir():
        raise UserError(
            f"--out {out} is a file, not a directory; choose a new or empty directory for the build"
        )
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(
            f"--out {out}: cannot create the directory ({e.strerror}); choose a --out in a directory you can write to"
        ) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UserError(
            f"--out {out}: the directory is not writable; choose a --out in a directory you can write to"
        )
    return created


def _build_locked(
    cfg: BuildConfig,
    out: Loc,
    staged: Path,
    shown: Path | str,
    *,
    workers: int | None,
    executor: str,
    force: bool,
    progress: Progress | None,
    write_report: bool,
    chunk_rows: int,
    task_retries: int,
    task_timeout_s: float | None,
) -> BuildResult:
    """The build in `out`; shards, notes and report written in `staged` (`out` itself when it is
    local, else uploaded from there before the manifest)."""
    resumed, complete = _prepare_out(out, cfg, force)
    if complete:
        return BuildResult(shown, read_manifest(out) or {}, [], already_complete=True)
    try:
        ex = make_executor(executor, workers, retries=task_retries, task_timeout_s=task_timeout_s)
        factories: dict[str, Callable[..., Stage]] = {}
        if ex.local:
            stages = make_stages(cfg, workers)
        else:  # row stages are rebuilt in each task with one sandbox worker a CPU it holds (most
            # hold one), from factories that hold what they take from the build (the hub's references) already
            made = {name: stage_factory(name, cfg, 1) for name in cfg.stages}
            stages = [f() for f in made.values()]
            factories = {s.name: made[s.name] for s in stages if not isinstance(s, GlobalStage)}
        pipe = Pipeline(
            out / WORK_DIR, stages, batch_rows=cfg.batch_rows, progress=progress, executor=ex, factories=factories,
            chunk_rows=chunk_rows, max_record_bytes=cfg.max_record_bytes,
            on_problem=getattr(progress, "problem", None),  # a ProgressReporter's
        )  # fmt: skip
        try:
            runs = pipe.run(source_stream(cfg.sources))
            manifest = _finish(staged, cfg, pipe, runs, stages)
        finally:
            for s in stages:
                s.close()
            ex.close()
    except UserError:  # e.g. an empty source: a start that finished nothing leaves nothing behind
        if not resumed and not finished_units(out / WORK_DIR):
            (out / WORK_DIR).rmtree()
        raise
    if write_report:
        from curation.report import write_report as _write_report

        _write_report(staged, manifest, timing={r.name: round(r.seconds, 3) for r in runs})
    if not out.local:  # object storage: the staged files first, the manifest after them
        for name in (PROBLEMS_DIR, REJECTED_DIR, REPORT_DIR):
            (out / name).rmtree()
            if (staged / name).is_dir():
                (out / name).upload(staged / name)
    write_json(out / MANIFEST, manifest)  # last: a directory with a manifest is a finished build
    (out / WORK_DIR).rmtree()
    return BuildResult(shown, manifest, runs, resumed=resumed)


def _finish(
    out: Path, cfg: BuildConfig, pipe: Pipeline, runs: list[StageRun], stages: list[Stage]
) -> dict[str, Any]:
    kept: Iterator[pa.Table] = pipe.kept()
    first = next(kept, None)
    if first is None:  # nothing kept: the record's columns, as a rejected row has them
        kept_schema = pa.schema([f for f in REJECTED_SCHEMA if not f.name.startswith("reject_")])
    else:
        kept_schema = pa.schema([f for f in first.schema if f.name != ROW_COLUMN])
        kept = itertools.chain([first], kept)
    problems = write_shards(kept, out / PROBLEMS_DIR, cfg.shard_rows, kept_schema)
    measured = sorted({c for s in stages for c in s.measured_columns})
    costs: list[dict[str, Any]] = []
    rejected = write_shards(_without_measured(pipe.rejected(), set(measured), costs), out / REJECTED_DIR,
                            cfg.shard_rows, REJECTED_SCHEMA)  # fmt: skip
    input_counts = Counter(runs[0].kept) + Counter(runs[0].dropped)
    output_counts = Counter(runs[-1].kept)
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "codemix_version": _version(),
        "config": cfg.as_dict(),
        "stage_config": {s.name: s.config() for s in stages},
        "environment": _environment(stages, pipe.environments),
        "measured_columns": measured,
        "measured_reasons": _measured_reasons(stages),
        "measured_rejections": costs,
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


def _detail_keys(detail: str | None) -> set[str]:
    parsed = json.loads(detail) if detail else None
    return set(parsed) if isinstance(parsed, dict) else set()


def _without_measured(
    tables: Iterator[pa.Table], measured: set[str], taken: list[dict[str, Any]]
) -> Iterator[pa.Table]:
    """The rejected rows with the measured keys taken out of their `reject_detail` (a `too_slow`
    row's `cpu_s`), so that the rejected shards hold no value a run measured and are the same
    bytes from build to build; what is taken out goes to `taken` (the manifest's
    `measured_rejections`: problem_id, stage and the values)."""
    for t in tables:
        details = t.column("reject_detail").to_pylist()
        if not any(measured & _detail_keys(d) for d in details):
            yield t
            continue
        out: list[str | None] = []
        for pid, stage, d in zip(
            t.column(PROBLEM_ID).to_pylist(), t.column("reject_stage").to_pylist(), details
        ):
            if measured & _detail_keys(d):
                parsed = json.loads(d)
                taken.append(
                    {
                        PROBLEM_ID: pid,
                        "stage": stage,
                        **{k: parsed.pop(k) for k in sorted(measured & set(parsed))},
                    }
                )
                d = json.dumps(parsed, ensure_ascii=False)
            out.append(d)
        yield t.set_column(
            t.column_names.index("reject_detail"), "reject_detail", pa.array(out, pa.string())
        )


def _decontamination(cfg: BuildConfig, stages: list[Stage]) -> list[dict[str, Any]]:
    """What the build was decontaminated against: each benchmark's file, sha256, licence and size."""
    from filters.stages.decontam.stage import (
        DecontamStage,  # imported already when the build has the stage
    )

    stage = next((s for s in stages if isinstance(s, DecontamStage)), None)
    if stage is None:
        return []
    sizes = stage.benchmark_sizes()
    out = []
    for spec in cfg.decontam.against:
        d = describe_benchmark(spec)
        d["problems"] = sizes.get(d["name"], 0)
        source = hub_benchmark(spec)
        if source is not None:
            from curation.sources import get_source

            window = {"lcb_start": cfg.decontam.lcb_start, "lcb_end": cfg.decontam.lcb_end}
            d.update(hub=get_source(source).hub_id, **window)
        out.append(d)
    return out


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codemix")
    except PackageNotFoundError:
        return "0+unknown"
