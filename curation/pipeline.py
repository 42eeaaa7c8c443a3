"""Runs stages over units of input and does all the bookkeeping, resumably.

Each stage writes, per unit, its kept rows, its dropped rows and last a small JSON marker
(counts per source and reason, seconds). A unit with a marker is done; a build killed at any
moment redoes only units without one. Global stages re-observe every unit before judging.

Progress is counted in problems (rows), not units: a local stage judges a unit in chunks of
`chunk_rows` rows and reports after each, so a long unit (a 256-row verify unit takes minutes)
still shows movement. Chunking changes no result: every stage judges each row on its own. A stage
that says when each problem starts and ends (`Stage.on_problem`: amplify, verify) is counted a
problem at a time as each one's decision is final, and the pipeline's `on_problem` listener hears
which problems are under way (progress names one that is slow).

Where a stage is slow, resume keeps finer work than a unit: once a unit has taken `PART_AFTER_S`
since it started (or since its last part), the chunks judged so far are committed as a part of
the unit (`unit-NNNNN.parts/`, kept and dropped rows, marker last). A killed build resumes a unit
after its last part; the unit, once whole, is committed as always and its parts removed. So an
interrupted amplify or verify redoes at most the chunk it was judging (32 rows by default), and
a fast stage, which would only pay for the writes, its unit.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from os import PathLike
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from curation.executors import Executor, LocalExecutor
from curation.ingest import MAX_RECORD_BYTES, SCHEMA_STAGE, ingest_batches
from curation.storage import Loc, as_loc
from curation.store import sha256_file, write_json
from filters.contracts import (
    PROBLEMS_DIR,
    REJECT_REASON,
    REJECT_STAGE,
    REJECTED_DIR,
    REJECTED_SCHEMA,
    RecordError,
    UserError,
)
from filters.stage import GlobalStage, Stage

__all__ = [
    "UnitStats",
    "StageRun",
    "Pipeline",
    "StageRerun",
    "reason_kind",
    "rejected_rows",
    "rerun_stage",
    "finished_units",
    "process_unit",
    "UnitDone",
    "process_row_slice",
    "merge_row_slices",
    "WorkerStage",
    "parts_dir",
    "read_parts",
    "Progress",
    "ProblemListener",
    "PART_AFTER_S",
    "SLICES_PER_CPU",
    "WIDE_SHARE",
    "row_bytes",
]

#: progress(stage, problems done, problems in all (None while reading the input), extra counts)
Progress = Callable[[str, int, int | None, dict[str, int]], None]
#: on_problem(stage, "start" | "done", problem key): a problem's judging started or ended
ProblemListener = Callable[[str, str, str], None]


def reason_kind(reason: str) -> str:
    """The family of a reject reason: `duplicate_of:x (jaccard=0.9)` -> `duplicate_of`."""
    return reason.split(":", 1)[0].split(" ", 1)[0]


def row_bytes(table: pa.Table) -> np.ndarray:
    """Each row's bytes in memory (its values in every column; validity bits not counted), from
    the columns' offsets: no row is copied."""
    out = np.zeros(table.num_rows)
    for col in table.columns:
        if col.num_chunks:
            out += np.concatenate([_element_bytes(c) for c in col.chunks])
    return out


def _element_bytes(a: pa.Array) -> np.ndarray:
    t = a.type
    if pa.types.is_struct(t):
        return sum((_element_bytes(a.field(i)) for i in range(t.num_fields)), np.zeros(len(a)))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offsets = a.offsets.to_numpy()  # into the whole child array, whatever slice `a` is
        sums = np.concatenate([[0.0], np.cumsum(_element_bytes(a.values))])
        return sums[offsets[1:]] - sums[offsets[:-1]] + offsets.dtype.itemsize
    if pa.types.is_string(t) or pa.types.is_binary(t) or pa.types.is_large_string(t) or pa.types.is_large_binary(t):
        return pc.fill_null(pc.binary_length(a), 0).to_numpy(zero_copy_only=False).astype(float) + 4
    try:
        return np.full(len(a), t.bit_width / 8)
    except ValueError:  # a type without a fixed width that is none of the above: its mean
        return np.full(len(a), a.nbytes / max(len(a), 1))


@dataclass
class UnitStats:
    """What one stage did to one unit: rows in, kept and dropped per source, reasons, seconds."""

    kept: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    #: source -> reason kind -> rows (what the end-of-build notes explain per source)
    source_reasons: dict[str, dict[str, int]] = field(default_factory=dict)
    #: each kept row's bytes in memory, in order: how heavy it is to judge next, read by
    #: `Pipeline.run_row_stages` to start the slow slices first and give them more CPUs
    kept_bytes: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, kept: pa.Table, dropped: pa.Table, seconds: float) -> UnitStats:
        def sources(t: pa.Table) -> list[str]:
            return (
                [s if s is not None else "?" for s in t.column("source").to_pylist()]
                if t.num_rows
                else []
            )

        kinds = (
            [reason_kind(r) for r in dropped.column(REJECT_REASON).to_pylist()]
            if dropped.num_rows
            else []
        )
        per_source: dict[str, dict[str, int]] = {}
        for src, kind in zip(sources(dropped), kinds):
            per_source.setdefault(src, {})
            per_source[src][kind] = per_source[src].get(kind, 0) + 1
        return cls(
            dict(Counter(sources(kept))),
            dict(Counter(sources(dropped))),
            dict(Counter(kinds)),
            round(seconds, 6),
            per_source,
            [int(b) for b in row_bytes(kept)],
        )

    @property
    def rows(self) -> int:
        """Rows this stage judged in the unit (kept + dropped)."""
        return sum(self.kept.values()) + sum(self.dropped.values())

    @property
    def rows_kept(self) -> int:
        return sum(self.kept.values())


@dataclass
class StageRun:
    """Totals of one stage over all units."""

    name: str
    kept: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)
    reasons: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    source_reasons: dict[str, Counter] = field(default_factory=dict)

    def add(self, s: UnitStats) -> None:
        self.kept.update(s.kept)
        self.dropped.update(s.dropped)
        self.reasons.update(s.reasons)
        self.seconds += s.seconds
        for src, reasons in s.source_reasons.items():
            self.source_reasons.setdefault(src, Counter()).update(reasons)

    def as_dict(self) -> dict[str, Any]:
        return {
            "stage": self.name,
            "kept": dict(sorted(self.kept.items())),
            "dropped": dict(sorted(self.dropped.items())),
            "reasons": dict(sorted(self.reasons.items())),
            "reasons_by_source": {
                src: dict(sorted(r.items())) for src, r in sorted(self.source_reasons.items())
            },
        }

    def funnel(self) -> dict[str, Any]:
        """The manifest's entry for this stage (`counts.stages`): `as_dict()` plus rows in per source."""
        d = self.as_dict()
        d["in"] = dict(sorted((Counter(self.kept) + Counter(self.dropped)).items()))
        return d


def rejected_rows(dropped: pa.Table, stage: str) -> pa.Table:
    """A stage's dropped rows in the rejected-row schema: `reject_stage` added, the record's columns
    kept (absent ones null), the stage's own columns left out (they live in `reject_detail`)."""
    t = dropped.append_column(REJECT_STAGE, pa.array([stage] * dropped.num_rows, type=pa.string()))
    for f in REJECTED_SCHEMA:
        if f.name not in t.column_names:
            t = t.append_column(f, pa.nulls(t.num_rows, f.type))
    return t.select(REJECTED_SCHEMA.names).cast(REJECTED_SCHEMA)


#: A directory or file of a build's work: a local path or object storage (`curation.storage`).
_Where = str | PathLike[str] | Loc


def _unit_paths(d: Loc, unit: int) -> tuple[Loc, Loc, Loc]:
    """Kept rows, dropped rows and the completion marker of one unit of one stage."""
    stem = f"unit-{unit:05d}"
    return d / f"{stem}.parquet", d / f"{stem}.rejected.parquet", d / f"{stem}.json"


def finished_units(where: _Where) -> int:
    """Units and parts of units the unfinished build in `work` has committed, all stages together
    (their markers): with none, starting it over loses nothing."""
    work = as_loc(where)
    units = sum(1 for _ in work.glob("*/unit-*.json"))  # each stage's markers (`_unit_paths`)
    units += sum(1 for _ in work.glob("*/unit-*.slices/rows-*.json"))  # a remote task's slices
    return units + sum(1 for _ in work.glob("*/unit-*.parts/rows-*.json"))  # `_part_paths`


def _commit(paths: tuple[Loc, Loc, Loc], kept: pa.Table, dropped: pa.Table, marker: dict[str, Any]) -> None:
    """Kept rows, dropped rows, each written atomically, then the marker that says they are done."""
    kept_p, rej_p, marker_p = paths
    marker_p.parent.mkdir(parents=True, exist_ok=True)
    for table, path in ((kept, kept_p), (dropped, rej_p)):
        path.write_table_atomic(table, compression="zstd")
    write_json(marker_p, marker)


def _commit_unit(d: Loc, unit: int, kept: pa.Table, dropped: pa.Table, stats: UnitStats) -> None:
    """Write a unit's outputs, each atomically, and the marker last: a marker means the unit is done."""
    _commit(_unit_paths(d, unit), kept, dropped, stats.__dict__)


#: seconds a unit may take before the chunks it judged are kept as a part of it (see above)
PART_AFTER_S = 1.0


def parts_dir(d: _Where, unit: int) -> Loc:
    """_Where the parts of an unfinished unit are kept."""
    return as_loc(d) / f"unit-{unit:05d}.parts"


def _part_paths(parts: Loc, start: int) -> tuple[Loc, Loc, Loc]:
    """Kept rows, dropped rows and the marker of the part that starts at row `start`."""
    stem = f"rows-{start:06d}"
    return parts / f"{stem}.parquet", parts / f"{stem}.rejected.parquet", parts / f"{stem}.json"


def read_parts(where: _Where) -> tuple[int, list[pa.Table], list[pa.Table]]:
    """The rows a unit's parts cover from its first row on (the parts that follow each other
    without a gap), with their kept and dropped rows."""
    parts = as_loc(where)
    if not parts.is_dir():
        return 0, [], []
    marked = {int(p.stem.split("-")[1]): p for p in parts.glob("rows-*.json")}
    covered, kept, dropped = 0, [], []
    while covered in marked:
        kept_p, rej_p, marker = _part_paths(parts, covered)
        kept.append(kept_p.read_table())
        dropped.append(rej_p.read_table())
        covered += int(json.loads(marker.read_text())["rows"])
    return covered, kept, dropped


def _concat(tables: list[pa.Table]) -> pa.Table:
    # parts read back from Parquet and chunks judged now: the same columns, maybe not the same
    # Arrow types where a chunk's column was all null
    return pa.concat_tables(tables, promote_options="permissive")


class UnitDone(NamedTuple):
    """What `process_unit` did: the unit's rows, and what the stage found about where it ran
    (`Stage.environment()`, asked only with `report_environment`)."""

    rows: int
    environment: dict[str, Any] | None = None


def process_unit(
    stage: Stage | Callable[[], Stage],
    source: _Where,
    d: _Where,
    unit: int,
    chunk_rows: int | None = None,
    on_rows: Callable[[int], None] | None = None,
    part_after_s: float = PART_AFTER_S,
    on_problem: Callable[[str, str], None] | None = None,
    *,
    report_environment: bool = False,
) -> UnitDone:
    """Run one stage over one committed unit and commit the result (also the body of a Ray task).

    `stage` may be a factory: a row stage that holds processes (the sandbox) is then built where
    it runs, and closed after. With `chunk_rows`, the rows are judged that many at a time and
    `on_rows(n)` is told after each chunk (and, first, of the rows the unit's parts hold: an
    interrupted run's judged chunks, which are not judged again). The chunks judged are kept as
    a part of the unit once it has run `part_after_s` since it started or since its last part.
    A stage that says when each problem's decision is final (`Stage.on_problem`) has `on_rows(1)`
    called for each as it is, and the rest of a chunk after it; `on_problem(event, key)` hears
    each problem start and end. With `report_environment`, the stage's `environment()` (the
    sandbox's isolation on this worker) comes back too, for a task on another node to report.
    """
    heard = _DoneCounter(on_rows, on_problem)
    with _stage_in_use(stage, heard if on_rows is not None or on_problem is not None else None) as st:
        t0 = time.perf_counter()
        table = as_loc(source).read_table()
        d = as_loc(d)
        parts = parts_dir(d, unit)
        kept, dropped = _judge_in_chunks(st, table, parts, chunk_rows, heard, part_after_s)
        _commit_unit(d, unit, kept, dropped, UnitStats.of(kept, dropped, time.perf_counter() - t0))
        parts.rmtree()
        return UnitDone(table.num_rows, st.environment() if report_environment else None)


def _unit_task(*job: Any) -> UnitDone:
    """`process_unit` as a task on another node runs it: the worker's environment said too."""
    return process_unit(*job, report_environment=True)


class _DoneCounter:
    """A stage's `on_problem` listener that tells `on_rows(1)` as each problem's decision is final
    and counts them, so that the rest of a chunk (`end_chunk`) is told once, after it."""

    def __init__(
        self,
        on_rows: Callable[[int], None] | None,
        on_problem: Callable[[str, str], None] | None = None,
    ) -> None:
        self.on_rows, self.on_problem = on_rows, on_problem
        self.lock = threading.Lock()  # a stage's problems end on its threads
        self.done = 0

    def __call__(self, event: str, key: str) -> None:
        if event == "done" and self.on_rows is not None:
            with self.lock:
                self.done += 1
            self.on_rows(1)
        if self.on_problem is not None:
            self.on_problem(event, key)

    def end_chunk(self, rows: int) -> None:
        """The chunk of `rows` rows is judged: tell what its problems did not, and start over."""
        with self.lock:
            rest = max(0, rows - self.done)
            self.done = 0
        if rest and self.on_rows is not None:
            self.on_rows(rest)


def _judge_in_chunks(
    st: Stage,
    table: pa.Table,
    parts: Loc,
    chunk_rows: int | None,
    heard: _DoneCounter,
    part_after_s: float,
) -> tuple[pa.Table, pa.Table]:
    """The unit's kept and dropped rows: its parts read back, the rest judged `chunk_rows` at a
    time, the chunks judged committed as a part every `part_after_s`."""
    t0 = time.perf_counter()
    n = table.num_rows
    start, kept, dropped = read_parts(parts)
    if start and heard.on_rows is not None:
        heard.on_rows(start)
    step = chunk_rows if chunk_rows and chunk_rows < n else max(n, 1)
    since, since_t = start, t0  # the first row, and the time, since the last part
    new_kept: list[pa.Table] = []  # chunks judged since then
    new_dropped: list[pa.Table] = []
    for first in range(start, n, step):
        part = st.process(table.slice(first, step))
        new_kept.append(part.kept)
        new_dropped.append(part.dropped)
        heard.end_chunk(min(step, n - first))
        end = first + step
        if end < n and time.perf_counter() - since_t >= part_after_s:
            _commit_part(parts, since, end - since, _concat(new_kept), _concat(new_dropped))
            kept, dropped = kept + new_kept, dropped + new_dropped
            new_kept, new_dropped, since, since_t = [], [], end, time.perf_counter()
    kept, dropped = kept + new_kept, dropped + new_dropped
    if not kept:  # an empty unit still gets its (empty) outputs and marker
        part = st.process(table)
        kept, dropped = [part.kept], [part.dropped]
    return _concat(kept), _concat(dropped)


class WorkerStage:
    """A stage factory whose stage a worker process makes once and keeps for the build's later
    tasks (`process_unit`, `process_row_slice`): a Ray task then pays neither for
    starting a sandbox nor for indexing decontam's references, as a local build pays once.

    `build` names the build: a task of another build closes the stages kept for earlier ones.
    A task that raises closes and forgets the stage it used (its sandbox may be broken).
    `workers` above 1 is for a task holding that many CPUs: the factory is called with
    `workers=` (its sandbox's processes), and the worker keeps that stage apart."""

    def __init__(self, factory: Callable[..., Stage], build: str, name: str, workers: int = 1) -> None:
        self.factory = factory
        self.build = build
        self.name = name
        self.workers = workers

    def __call__(self) -> Stage:  # a fresh stage, as the factory makes it
        return self.factory() if self.workers == 1 else self.factory(workers=self.workers)


# (build, stage name, sandbox workers) -> stage, in a worker
_KEPT_STAGES: dict[tuple[str, str, int], Stage] = {}


def _stage_for(stage: Stage | Callable[[], Stage] | WorkerStage) -> tuple[Stage, bool]:
    """(the stage to judge with, whether the caller closes it after)."""
    if isinstance(stage, Stage):
        return stage, False
    if not isinstance(stage, WorkerStage):
        return stage(), True
    for key in [k for k in _KEPT_STAGES if k[0] != stage.build]:
        _KEPT_STAGES.pop(key).close()
    key = (stage.build, stage.name, stage.workers)
    if key not in _KEPT_STAGES:
        _KEPT_STAGES[key] = stage()
    return _KEPT_STAGES[key], False


@contextlib.contextmanager
def _stage_in_use(
    stage: Stage | Callable[[], Stage] | WorkerStage, listener: Callable[[str, str], None] | None
) -> Iterator[Stage]:
    """The stage to judge with (`_stage_for`), listened to by `listener` for the `with` block;
    closed after if it was made for it, and forgotten by the worker if the block raises (its
    sandbox may be broken)."""
    st, owned = _stage_for(stage)
    st.on_problem = listener
    try:
        yield st
    except BaseException:
        if isinstance(stage, WorkerStage):
            kept = _KEPT_STAGES.pop((stage.build, stage.name, stage.workers), None)
            if kept is not None:
                kept.close()
        raise
    finally:
        st.on_problem = None
        if owned:
            st.close()


def _present(path: Loc, wanted: Iterable[str] | None) -> list[str] | None:
    """The columns of `wanted` that the Parquet file at `path` has (None: all of them)."""
    if wanted is None:
        return None
    names = set(path.parquet_file().schema_arrow.names)
    return [c for c in wanted if c in names]


def _commit_part(parts: Loc, start: int, rows: int, kept: pa.Table, dropped: pa.Table) -> None:
    """Keep rows [start, start + rows) of an unfinished unit, judged (the marker last)."""
    _commit(_part_paths(parts, start), kept, dropped, {"rows": rows})


class Pipeline:
    """Ingest a stream of raw rows into units, then run each stage over every unit, in order."""

    def __init__(
        self,
        work: _Where,
        stages: list[Stage],
        batch_rows: int = 500,
        progress: Progress | None = None,
        executor: Executor | None = None,
        factories: Mapping[str, Callable[..., Stage]] | None = None,
        chunk_rows: int = 32,
        part_after_s: float = PART_AFTER_S,
        max_record_bytes: int | None = MAX_RECORD_BYTES,
        on_problem: ProblemListener | None = None,
    ):
        self.work = as_loc(work)
        self.max_record_bytes = max_record_bytes
        self.on_problem = on_problem
        self.stages = stages
        self.batch_rows = batch_rows
        self.chunk_rows = chunk_rows
        self.part_after_s = part_after_s
        self.progress = progress or (lambda *a: None)
        self.executor = executor or LocalExecutor()
        self.executor.warm([__name__])  # a worker elsewhere imports this module (and its stages) early
        self.factories = factories or {}
        #: stage -> what each remote task's stage reported of its surroundings (`Stage.environment`)
        self.environments: dict[str, list[dict[str, Any]]] = {}
        names = [SCHEMA_STAGE] + [s.name for s in stages]
        if len(set(names)) != len(names):
            raise ValueError(f"stage names must be unique, got {names}")

    # -- unit files -------------------------------------------------------------------------
    def _dir(self, index: int, name: str) -> Loc:
        return self.work / f"{index:02d}-{name}"

    def _done_units(self, d: Loc) -> list[int]:
        return (
            sorted(int(p.stem.split("-")[1]) for p in d.glob("unit-*.json")) if d.exists() else []
        )

    def _read_stats(self, d: Loc, unit: int) -> UnitStats:
        return UnitStats(**json.loads(_unit_paths(d, unit)[2].read_text()))

    def _units(self, index: int, name: str) -> list[int]:
        return self._done_units(self._dir(index, name))

    def _kept_unit(self, index: int, name: str, unit: int) -> pa.Table:
        return _unit_paths(self._dir(index, name), unit)[0].read_table()

    # -- what a run hands over ---------------------------------------------------------------
    def kept(self) -> Iterator[pa.Table]:
        """The rows the last stage kept, a table per unit in input order (read as they are asked for)."""
        index, name = len(self.stages), ([SCHEMA_STAGE] + [s.name for s in self.stages])[-1]
        for u in self._units(index, name):
            yield self._kept_unit(index, name, u)

    def rejected(self) -> Iterator[pa.Table]:
        """Every stage's dropped rows in the rejected-row schema (`rejected_rows`), stage by
        stage in pipeline order, a table per unit that dropped any."""
        for index, name in enumerate([SCHEMA_STAGE] + [s.name for s in self.stages]):
            d = self._dir(index, name)
            for u in self._done_units(d):
                t = _unit_paths(d, u)[1].read_table()
                if t.num_rows:
                    yield rejected_rows(t, name)

    # -- running ----------------------------------------------------------------------------
    def ingest(self, stream: Iterable[dict[str, Any] | RecordError]) -> StageRun:
        """Cut the input into units and validate them; already committed units are skipped."""
        d = self._dir(0, SCHEMA_STAGE)
        complete = d / "complete.json"
        run = StageRun(SCHEMA_STAGE)
        done = self._done_units(d)
        if not complete.exists():
            # Units are committed in order, so the first gap is where the stream resumes.
            skip = next((i for i, u in enumerate(done) if i != u), len(done))
            rows = sum(self._read_stats(d, u).rows for u in done[:skip])
            kept = sum(self._read_stats(d, u).rows_kept for u in done[:skip])
            self.progress(SCHEMA_STAGE, rows, None, {"kept": kept})
            t0 = time.perf_counter()
            for unit, batch in ingest_batches(
                stream, self.batch_rows, skip_units=skip, max_record_bytes=self.max_record_bytes
            ):
                stats = UnitStats.of(batch.kept, batch.rejected, time.perf_counter() - t0)
                _commit_unit(d, unit, batch.kept, batch.rejected, stats)
                rows += stats.rows
                kept += batch.kept.num_rows
                self.progress(SCHEMA_STAGE, rows, None, {"kept": kept})
                t0 = time.perf_counter()
            done = self._done_units(d)
            write_json(complete, {"units": len(done)})
        for u in done:
            run.add(self._read_stats(d, u))
        total = sum(run.kept.values()) + sum(run.dropped.values())
        self.progress(
            SCHEMA_STAGE,
            total,
            total,
            {"kept": sum(run.kept.values()), "dropped": sum(run.dropped.values())},
        )
        return run

    def run_stage(self, index: int, stage: Stage) -> StageRun:
        """Run stage number `index` (1-based; 0 is ingestion) over every unit of the previous one."""
        prev_index, prev_name = (
            index - 1,
            ([SCHEMA_STAGE] + [s.name for s in self.stages])[index - 1],
        )
        prev_dir = self._dir(prev_index, prev_name)
        units = self._units(prev_index, prev_name)
        d = self._dir(index, stage.name)
        done = set(self._done_units(d))
        todo = [u for u in units if u not in done]
        rows_in = {u: self._read_stats(prev_dir, u).rows_kept for u in units}
        total = sum(rows_in.values())
        finished = sum(rows_in[u] for u in units if u in done)
        self.progress(stage.name, finished, total, {})
        if isinstance(stage, GlobalStage) and todo:
            self._decide(stage, prev_dir, units)
        # Row stages that own processes travel to remote workers as factories; decided global stages as they are.
        factory = self.factories.get(stage.name)
        payload: Stage | Callable[[], Stage] = stage
        if factory is not None and not isinstance(stage, GlobalStage) and not self.executor.local:
            payload = factory

        lock = threading.Lock()  # a stage's problems end on its threads

        def advance(n: int) -> None:
            nonlocal finished
            with lock:
                finished += n
                self.progress(stage.name, finished, total, {})

        if todo:
            shared = self.executor.share(payload)  # once per stage, not once per task
            rows = self.executor.rows_reporter(advance)
            listener = self.on_problem  # (in this process only: it does not travel to a task)
            heard = partial(listener, stage.name) if listener is not None and self.executor.local else None
            jobs = [(shared, _unit_paths(prev_dir, u)[0], d, u, self.chunk_rows, rows, self.part_after_s, heard)
                    for u in todo]  # fmt: skip
            labels = [f"stage {stage.name}, unit {u}" for u in todo]
            # a remote task also says where it ran (the sandbox's isolation on that worker)
            task = process_unit if self.executor.local else _unit_task
            for done in self.executor.map(task, jobs, labels):
                if done.environment is not None:
                    self.environments.setdefault(stage.name, []).append(done.environment)
        return self._stage_run(index, stage, units)

    def _decide(self, stage: GlobalStage, prev_dir: Loc, units: list[int]) -> None:
        """A global stage observes every unit of the previous stage, then decides; only the columns
        it observes travel to the driver (all, if it names none)."""
        wanted = getattr(stage, "observe_columns", None)
        for u in units:
            kept_p = _unit_paths(prev_dir, u)[0]
            stage.observe(kept_p.read_table(columns=_present(kept_p, wanted)))
        stage.decide()

    def run(self, stream: Iterable[dict[str, Any] | RecordError]) -> list[StageRun]:
        """Ingest, then every stage in order. On an executor whose tasks run elsewhere,
        consecutive row stages run as one task per slice of a unit (`run_row_stages`): a slice goes
        on to the next row stage as soon as it is through one; only global stages wait for every unit."""
        runs = [self.ingest(stream)]
        i = 1
        while i <= len(self.stages):
            last = i
            if not self.executor.local:
                while last < len(self.stages) and not any(
                    isinstance(s, GlobalStage) for s in self.stages[i - 1 : last + 1]
                ):
                    last += 1
            if not self.executor.local and not isinstance(self.stages[i - 1], GlobalStage):
                runs.extend(self.run_row_stages(i, last))
            else:
                runs.append(self.run_stage(i, self.stages[i - 1]))
            i = last + 1
        return runs

    def _stage_run(self, index: int, stage: Stage, units: list[int]) -> StageRun:
        """Stage number `index`'s counts over `units`, finished, told to progress."""
        names = [SCHEMA_STAGE] + [s.name for s in self.stages]
        before = self._dir(index - 1, names[index - 1])
        total = sum(self._read_stats(before, u).rows_kept for u in units)
        d = self._dir(index, stage.name)
        run = StageRun(stage.name)
        for u in units:
            run.add(self._read_stats(d, u))
        kept, dropped = sum(run.kept.values()), sum(run.dropped.values())
        self.progress(stage.name, total, total, {"kept": kept, "dropped": dropped})
        return run

    def run_row_stages(self, first: int, last: int) -> list[StageRun]:
        """Row stages number `first`..`last` (1-based), streamed and sliced for an executor whose
        tasks run elsewhere: each unit is cut into slices of at most `chunk_rows` rows (fewer when
        the stage's rows are few against the cluster's CPUs, so that idle CPUs find work to the
        end), and one task takes one slice through each of the stages in turn, committing each
        stage's slice as it goes (`process_row_slice`); a slice goes on to the next stage without
        waiting for other slices. Once every slice of a unit is through, a task merges each
        stage's slices into the unit (`merge_row_slices`). The heaviest slices go first (bytes,
        from the unit files' footers), so that a slow problem does not run alone at the end. A
        lost task loses the slice it was judging, at most one chunk; a retried or resumed one
        starts at the first stage the slice has not finished. Progress is told per stage as
        problems are judged."""
        names = [SCHEMA_STAGE] + [s.name for s in self.stages]
        prev_dir = self._dir(first - 1, names[first - 1])
        units = self._units(first - 1, names[first - 1])
        span = list(range(first, last + 1))
        dirs = [self._dir(i, names[i]) for i in span]
        todo = [u for u in units if u not in set(self._done_units(dirs[-1]))]
        rows_in = {u: self._read_stats(prev_dir, u).rows_kept for u in units}
        total = sum(rows_in.values())
        finished = {i: 0 for i in span}
        finished[first] = sum(n for u, n in rows_in.items() if u not in todo)
        self.progress(names[first], finished[first], total, {})

        def advance_for(i: int) -> Callable[[int], None]:
            def advance(n: int) -> None:
                finished[i] += n
                self.progress(names[i], finished[i], total if i == first else None, {})

            return advance

        if todo:
            build = uuid.uuid4().hex  # a worker keeps each stage it makes for this build's tasks
            shared: dict[int, list[Any]] = {}  # CPUs of a task -> the stages it is sent

            def payloads(cpus: int) -> list[Any]:
                if cpus not in shared:
                    shared[cpus] = []
                    for stage in self.stages[first - 1 : last]:
                        factory = self.factories.get(stage.name)
                        made = WorkerStage(factory, build, stage.name, cpus) if factory is not None else stage
                        shared[cpus].append(self.executor.share(made))
                return shared[cpus]

            reporters = [self.executor.rows_reporter(advance_for(i)) for i in span]
            jobs, labels, cpus, merges, left = self._slice_jobs(
                todo, prev_dir, dirs, names[first : last + 1], payloads, reporters
            )
            # a unit is merged as soon as its last slice is through, while other slices still run
            for u, envs in self.executor.map(_row_task, jobs, labels, cpus):
                for i, env in zip(span[len(span) - len(envs):], envs):
                    if env is not None:
                        self.environments.setdefault(names[i], []).append(env)
                if u in left:
                    left[u] -= 1
                    if not left[u]:
                        del left[u]
                        jobs.append(merges[u])
                        labels.append(f"merging unit {u}'s slices")
        return [self._stage_run(i, self.stages[i - 1], units) for i in span]

    def _slice_jobs(
        self, todo: list[int], prev_dir: Loc, dirs: list[Loc], names: list[str],
        payloads: Callable[[int], list[Any]], reporters: list[Callable[[int], None]],
    ) -> tuple[list[tuple[Any, ...]], list[str], list[int], dict[int, tuple[Any, ...]], dict[int, int]]:
        """`run_row_stages`' tasks: the slices of each unit in `todo` through the stages whose
        directories are `dirs` (named `names`), from the first stage the unit has not finished,
        the heaviest first, with the CPUs each holds (`payloads(cpus)`: the stages such a task
        is sent); and per unit its merge task and how many of its slices there are."""
        pending = []  # (unit, index in dirs of the first stage the unit has not finished, its stats)
        for u in todo:
            # where an earlier run cut the unit into slices, from there (their rows are counted
            # from that stage's input), else the first stage the unit has not finished
            k = next((k for k, d in enumerate(dirs) if (_slices_dir(d, u) / "layout.json").exists()),
                     next(k for k, d in enumerate(dirs) if not _unit_paths(d, u)[2].exists()))  # fmt: skip
            pending.append((u, k, self._read_stats(prev_dir if k == 0 else dirs[k - 1], u)))
        slots = self.executor.slots()
        slice_rows = max(1, min(self.chunk_rows, -(-sum(s.rows_kept for *_, s in pending) // (SLICES_PER_CPU * slots))))
        slices = []  # (unit, first stage, start, stop, weight)
        merges, left = {}, {}  # unit -> its merge job, slices not finished yet
        for u, k, stats in pending:
            n = stats.rows_kept
            # each row's bytes, as the unit's marker has them (every row alike where it has not)
            heft = np.asarray(stats.kept_bytes if len(stats.kept_bytes) == n else [1] * n, dtype=float)
            rows = _slice_layout(dirs[k], u, slice_rows)
            starts = range(0, max(n, 1), rows)
            slices += [(u, k, start, min(start + rows, n), float(heft[start : start + rows].sum())) for start in starts]
            merges[u], left[u] = (True, u, dirs[k:], u, n, rows), len(starts)
        # the heaviest slices first, so that the slow problems (long suites, as CodeContests')
        # do not run alone at the end of a stage; a slice weighing more than `WIDE_SHARE` of a
        # CPU's share of the work holds more CPUs (its sandbox that many workers), up to a node's
        slices.sort(key=lambda s: -s[4])
        total = sum(s[4] for s in slices) or 1.0
        widest = self.executor.widest()
        jobs, labels, cpus = [], [], []
        for u, k, start, stop, weight in slices:
            c = min(widest, max(1, math.ceil(weight * slots / total / WIDE_SHARE - 1e-9)))
            src = prev_dir if k == 0 else dirs[k - 1]
            jobs.append((False, u, src, dirs[k:], u, start, stop, reporters[k:], *payloads(c)[k:]))
            which = f"stage {names[-1]}" if k == len(dirs) - 1 else f"stages {names[k]}..{names[-1]}"
            labels.append(f"{which}, unit {u}, rows {start}-{stop}" + (f" ({c} CPUs)" if c > 1 else ""))
            cpus.append(c)
        return jobs, labels, cpus, merges, left


#: a row stage's rows on a cluster are cut into about this many slices per CPU (`run_row_stages`)
SLICES_PER_CPU = 16
#: a slice whose rows' bytes are more than this share of one CPU's share of the work holds
#: ceil(its share / WIDE_SHARE) CPUs (`run_row_stages`): judging time grows faster than bytes (a
#: slice holding a CodeContests problem with 0.3 of a 120-problem build's bytes took half of
#: its tasks' time)
WIDE_SHARE = 0.5


def _slices_dir(d: Loc, unit: int) -> Loc:
    return d / f"unit-{unit:05d}.slices"


def _slice_layout(d: Loc, unit: int, rows: int) -> int:
    """The slice size of a unit's slices in stage directory `d`: the one its first slices were cut
    with (a resumed build on another cluster keeps it), else `rows`, recorded now."""
    layout = _slices_dir(d, unit) / "layout.json"
    if layout.exists():
        return int(json.loads(layout.read_text())["rows"])
    write_json(layout, {"rows": rows})
    return rows


def _row_task(merge: bool, key: int, *args: Any) -> tuple[int | None, list[dict[str, Any] | None]]:
    """A task of `Pipeline.run_row_stages`: a slice (`process_row_slice`) or a unit's merge
    (`merge_row_slices`); returns the unit when a slice of it is through, and the environments."""
    if merge:
        merge_row_slices(*args)
        return None, []
    return key, process_row_slice(*args)


def process_row_slice(
    source: _Where,
    dirs: list[_Where],
    unit: int,
    start: int,
    stop: int,
    on_rows: list[Callable[[int], None]] | None,
    *stages: Stage | Callable[[], Stage],
) -> list[dict[str, Any] | None]:
    """Rows [start, stop) of one unit through consecutive row stages (the body of a task of
    `Pipeline.run_row_stages`): each stage's kept and dropped rows of the slice are committed in
    `NN-stage/unit-N.slices/` (marker last) and the kept rows go on to the next stage; a stage the
    slice has finished is read back, not judged again. Returns each stage's `environment()`."""
    table = _unit_paths(as_loc(source), unit)[0].read_table().slice(start, stop - start)
    envs: list[dict[str, Any] | None] = []
    for k, (stage, d) in enumerate(zip(stages, dirs)):
        kept_p, rej_p, marker = _part_paths(_slices_dir(as_loc(d), unit), start)
        if marker.exists():
            table = kept_p.read_table()
            envs.append(None)
            continue
        heard = _DoneCounter(on_rows[k] if on_rows is not None else None)
        with _stage_in_use(stage, heard if heard.on_rows is not None else None) as st:
            t0 = time.perf_counter()
            part = st.process(table)
            seconds = time.perf_counter() - t0
            heard.end_chunk(table.num_rows)
            _commit((kept_p, rej_p, marker), part.kept, part.dropped, {"rows": table.num_rows, "seconds": seconds})
            envs.append(st.environment())
        table = part.kept
    return envs


def merge_row_slices(dirs: list[_Where], unit: int, rows: int, slice_rows: int) -> None:
    """Each stage's slices of one unit (`process_row_slice`), in row order, committed as the unit
    (marker last), then the slices removed. A stage whose unit is committed already is passed over."""
    for d in map(as_loc, dirs):
        if _unit_paths(d, unit)[2].exists():
            continue
        sd = _slices_dir(d, unit)
        kept, dropped, seconds = [], [], 0.0
        for start in range(0, max(rows, 1), slice_rows):
            kept_p, rej_p, marker = _part_paths(sd, start)
            kept.append(kept_p.read_table())
            dropped.append(rej_p.read_table())
            seconds += float(json.loads(marker.read_text())["seconds"])
        k, r = _concat(kept), _concat(dropped)
        _commit_unit(d, unit, k, r, UnitStats.of(k, r, seconds))
    for d in map(as_loc, dirs):  # only now: until every stage is merged, the slices say where they began
        _slices_dir(d, unit).rmtree()


@dataclass
class StageRerun:
    """What rerunning one stage on a finished build did: its counts, the new shards, the new rejected file."""

    run: StageRun
    #: The rewritten `problems/` shards: file, rows, sha256 (the manifest's `problems`).
    problems: list[dict[str, Any]]
    #: The new `rejected/<stage>-NNNNN.parquet`, or None when the stage dropped nothing.
    rejected: dict[str, Any] | None

    def update_manifest(self, manifest: dict[str, Any], stage: Stage) -> None:
        """Record the rerun in a build's manifest: shards, rejected file, counts and the stage's
        configuration; a previous run of the same stage is replaced in the funnel."""
        manifest["problems"] = self.problems
        if self.rejected is not None:
            manifest.setdefault("rejected", []).append(self.rejected)
        counts = manifest.setdefault("counts", {})
        counts["output"] = dict(sorted(self.run.kept.items()))
        counts["rejected"] = int(counts.get("rejected", 0)) + (
            self.rejected["rows"] if self.rejected else 0
        )
        others = [s for s in counts.get("stages", []) if s.get("stage") != self.run.name]
        counts["stages"] = [*others, self.run.funnel()]
        manifest.setdefault("stage_config", {})[self.run.name] = stage.config()


def _next_rejected_file(directory: Path, stage: str) -> Path:
    i = 0
    while (directory / f"{stage}-{i:05d}.parquet").exists():
        i += 1
    return directory / f"{stage}-{i:05d}.parquet"


def rerun_stage(out: str | Path, stage: Stage) -> StageRerun:
    """Run one more stage over a finished build's `problems/` shards, in place.

    A global stage observes every shard and decides first. Each shard is judged whole and rewritten
    under a temporary directory that replaces `problems/` at once; dropped rows go to a new
    `rejected/<stage>-NNNNN.parquet`. The manifest is the caller's to update
    (`StageRerun.update_manifest`), last. The stage is not closed: it is the caller's.
    """
    out = Path(out)
    problems_dir = out / PROBLEMS_DIR
    files = sorted(problems_dir.glob("*.parquet"))
    if not files:
        raise UserError(
            f"{problems_dir} holds no parquet shards; pass the --out directory of a `codemix build`"
        )
    if isinstance(stage, GlobalStage):
        for f in files:
            stage.observe(pq.read_table(f))
        stage.decide()
    tmp_dir = out / f".{PROBLEMS_DIR}.{stage.name}-tmp"
    shutil.rmtree(tmp_dir, ignore_errors=True)
    tmp_dir.mkdir(parents=True)
    run = StageRun(stage.name)
    shards: list[dict[str, Any]] = []
    dropped: list[pa.Table] = []
    for f in files:
        t0 = time.perf_counter()
        result = stage.process(pq.read_table(f))
        pq.write_table(result.kept, tmp_dir / f.name, compression="zstd")
        shards.append(
            {
                "file": f"{PROBLEMS_DIR}/{f.name}",
                "rows": result.kept.num_rows,
                "sha256": sha256_file(tmp_dir / f.name),
            }
        )
        run.add(UnitStats.of(result.kept, result.dropped, time.perf_counter() - t0))
        if result.dropped.num_rows:
            dropped.append(rejected_rows(result.dropped, stage.name))
    rejected = None
    if dropped:
        path = _next_rejected_file(out / REJECTED_DIR, stage.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        table = pa.concat_tables(dropped)
        pq.write_table(table, tmp, compression="zstd")
        tmp.replace(path)
        rejected = {
            "file": f"{REJECTED_DIR}/{path.name}",
            "rows": table.num_rows,
            "sha256": sha256_file(path),
        }
    old_dir = out / f".{PROBLEMS_DIR}.{stage.name}-old"
    shutil.rmtree(old_dir, ignore_errors=True)
    problems_dir.replace(old_dir)
    tmp_dir.replace(problems_dir)
    shutil.rmtree(old_dir, ignore_errors=True)
    return StageRerun(run, shards, rejected)
