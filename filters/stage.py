"""The stage contract: a stage judges a batch of problems and says which rows stay and why others go.

A stage only decides; the pipeline (in `curation`) does the bookkeeping: counts per stage and
source, time per stage, and writing dropped rows to `rejected/`. docs/pipeline.md walks through it.

- `RowStage`: judges each row on its own (`judge_rows`), returning a `Decision` per row.
- `GlobalStage`: two phases; `observe` every batch (signatures, features), then `decide` once,
  then `judge_rows` applies the global decision batch by batch.

Every stage's lifecycle, in the order the pipeline calls it: `observe`/`decide` (global stages
only), `process` per batch, then `config()` and `environment()` for the manifest, and `close()`
once at the end, which releases what the stage holds (a sandbox's processes).
"""

from __future__ import annotations

import inspect
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, is_dataclass, replace
from typing import Any, ClassVar, cast

import pyarrow as pa

from filters.contracts import REJECT_DETAIL, REJECT_REASON, ProblemRow

__all__ = [
    "Decision",
    "StageResult",
    "Stage",
    "RowStage",
    "GlobalStage",
    "apply_decisions",
    "ProblemEvents",
    "problem_key",
]


@dataclass
class Decision:
    """The fate of one row: keep it (with new column values) or drop it with a reason.

    `columns` fills the stage's `output_schema` (missing names become null); `detail` is
    free-form JSON-able context stored with a dropped row (`reject_detail`).
    """

    keep: bool
    reason: str | None = None
    columns: dict[str, Any] = field(default_factory=dict)
    detail: dict[str, Any] | None = None

    @classmethod
    def drop(cls, reason: str, **detail: Any) -> Decision:
        return cls(False, reason, {}, detail or None)


@dataclass
class StageResult:
    """Rows a stage kept (with its new columns) and rows it dropped (with reason and detail)."""

    kept: pa.Table
    dropped: pa.Table  # input columns + `reject_reason` (string) + `reject_detail` (JSON string)


#: on_problem(event, problem key): a stage that judges problems one by one says when it starts
#: one ("start") and when its decision is final ("done"), from any thread (`Stage.on_problem`)
ProblemEvents = Callable[[str, str], None]


def problem_key(row: Mapping[str, Any]) -> str:
    """How progress names a problem: its `problem_id` (`source/id`), else its `id`."""
    return str(row.get("problem_id") or row.get("id") or "?")


class Stage(ABC):
    """Base class of every stage. Subclasses set `name` and `output_schema`."""

    name: ClassVar[str] = "stage"
    #: Columns this stage adds to kept rows (their order and Arrow types); a class attribute, which
    #: a stage whose columns depend on its settings may set per instance (the difficulty stage).
    output_schema: pa.Schema = pa.schema([])
    #: Columns holding measurements (times) or values derived from them: they differ between
    #: two runs of the same build, so reproducibility checks compare everything else.
    measured_columns: ClassVar[tuple[str, ...]] = ()
    #: Why each of `measured_columns` is one (the manifest's `measured_reasons`).
    measured_reasons: ClassVar[dict[str, str]] = {}
    #: The class of this stage's settings (a dataclass in `filters/settings.py`, registered with the
    #: stage in `filters.settings.STAGES`); None for a stage without settings.
    settings_class: ClassVar[type | None] = None
    #: The stage's settings object, for a stage that keeps one (`settings_from`); None otherwise.
    settings: Any = None
    #: Where a stage that judges problems one by one says that it started one and that one is
    #: done (`ProblemEvents`), so that progress counts problems as they finish and can name a
    #: slow one; the pipeline sets it around `process` (None: nobody listens).
    on_problem: ProblemEvents | None = None

    def problem_event(self, event: str, row: Mapping[str, Any]) -> None:
        """Tell `on_problem` (if set) that `row`'s problem started ("start") or is done ("done")."""
        listener = self.on_problem
        if listener is not None:
            listener(event, problem_key(row))

    @classmethod
    def from_settings(cls, settings: Any | None = None, **resources: Any) -> Stage:
        """The stage configured by its settings object (`settings_class`; None: the defaults),
        passed as the constructor's first argument. `resources` are what the build hands a stage
        besides settings (`workers`, decontam's `problems`); a stage takes the ones its
        constructor names."""
        params = inspect.signature(cls).parameters
        taken = {k: v for k, v in resources.items() if k in params}
        make: Any = cls  # a subclass's constructor, whose arguments the base does not declare
        return make(**taken) if cls.settings_class is None else make(settings, **taken)

    def settings_from(self, settings: Any | None) -> Any:
        """A private copy of `settings` (None: `settings_class`'s defaults), checked to be one: a
        stage that keeps its settings as one object (`self.settings`) builds it with this."""
        cls = type(self).settings_class
        if cls is None:
            raise TypeError(f"{type(self).__name__} declares no settings_class")
        if settings is not None and not isinstance(settings, cls):
            raise TypeError(f"{type(self).__name__} takes {cls.__name__}, got {type(settings).__name__}")
        base: Any = settings if settings is not None else cls()
        return replace(base)

    @abstractmethod
    def judge_rows(self, rows: list[ProblemRow]) -> list[Decision]:
        """One Decision per input row, in order."""

    def config(self) -> dict[str, Any]:
        """Parameters that change this stage's result; stored in the manifest. The default: the
        fields of the stage's settings object (`self.settings`), if it keeps one."""
        s = self.settings
        return asdict(s) if is_dataclass(s) and not isinstance(s, type) else {}

    def environment(self) -> dict[str, Any] | None:
        """What this run found about its surroundings (isolation in force, a fit's diagnostics),
        stored in the manifest's `environment`; None (the default) when there is nothing to say."""
        return None

    def close(self) -> None:
        """Release what the stage holds (processes, files). The pipeline calls it once, last; the
        default holds nothing."""
        return None

    def process(self, batch: pa.Table) -> StageResult:
        """Judge a batch; the base class builds the kept and dropped tables."""
        rows = cast(list[ProblemRow], batch.to_pylist())  # the store's rows: the record and more
        decisions = self.judge_rows(rows) if batch.num_rows else []
        if len(decisions) != batch.num_rows:
            raise RuntimeError(f"stage {self.name} returned {len(decisions)} decisions for {batch.num_rows} rows")
        return apply_decisions(batch, decisions, self.output_schema)


class RowStage(Stage):
    """A stage whose decision for a row depends on that row alone."""

    def judge_rows(self, rows: list[ProblemRow]) -> list[Decision]:
        return [self.judge(r) for r in rows]

    def judge(self, row: ProblemRow) -> Decision:
        raise NotImplementedError(f"{type(self).__name__} must implement judge() or judge_rows()")


class GlobalStage(Stage):
    """A stage that must see every row (`observe`) before it can decide (`decide`)."""

    #: The columns `observe` reads (those a batch has are passed, no others), so that a build on a
    #: cluster reads only them on its driver; None: every column.
    observe_columns: ClassVar[tuple[str, ...] | None] = None

    @abstractmethod
    def observe(self, batch: pa.Table) -> None:
        """Phase 1: record the compact per-row state this stage needs (signatures, features)."""

    @abstractmethod
    def decide(self) -> None:
        """Phase 2: one global decision from everything observed."""


def _detail_value(value: Any) -> Any:
    """What `json.dumps` writes for a detail value JSON lacks: a set as its members sorted (by
    their text: not in the order this process's hash seed iterates it), anything else as `str`."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=lambda x: (type(x).__name__, repr(x)))
    return str(value)


def _column(values: list[Any], typ: pa.DataType) -> pa.Array:
    return pa.array(values, type=typ)


def apply_decisions(batch: pa.Table, decisions: list[Decision], output_schema: pa.Schema) -> StageResult:
    """Split `batch` by `decisions`, add the stage's columns to kept rows and reasons to dropped ones."""
    keep_idx = [i for i, d in enumerate(decisions) if d.keep]
    drop_idx = [i for i, d in enumerate(decisions) if not d.keep]
    kept = batch.take(pa.array(keep_idx, type=pa.int64()))
    for f in output_schema:
        values = _column([decisions[i].columns.get(f.name) for i in keep_idx], f.type)
        if f.name in kept.column_names:  # a stage may fill an input column (verify: time_limit_s)
            kept = kept.set_column(kept.column_names.index(f.name), f, values)
        else:
            kept = kept.append_column(f, values)
    dropped = batch.take(pa.array(drop_idx, type=pa.int64()))
    reasons = []
    details = []
    for i in drop_idx:
        d = decisions[i]
        reasons.append(d.reason or "dropped")
        detail = dict(d.detail or {})
        if d.columns:
            detail.setdefault("columns", d.columns)
        details.append(json.dumps(detail, default=_detail_value, ensure_ascii=False) if detail else None)
    dropped = dropped.append_column(REJECT_REASON, pa.array(reasons, type=pa.string()))
    dropped = dropped.append_column(REJECT_DETAIL, pa.array(details, type=pa.string()))
    return StageResult(kept, dropped)
