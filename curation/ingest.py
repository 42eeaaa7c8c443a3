"""Ingestion: raw source rows become canonical Arrow batches; malformed rows become rejected rows.

(Exact-id deduplication, the first stage after ingestion, is `filters/stages/exact_id.py`.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa

from curation.schema import normalize_record
from filters.contracts import (
    KEPT_BASE_SCHEMA,
    PROBLEM_FIELDS,
    PROBLEM_ID,
    REJECT_DETAIL,
    REJECT_REASON,
    ROW_COLUMN,
    RecordError,
    problem_id,
)

__all__ = ["ROW_COLUMN", "SCHEMA_STAGE", "IngestBatch", "ingest_batches"]

#: The schema check's name in a build's counts (rows that do not fit the record are dropped there).
SCHEMA_STAGE = "schema"
_INGEST_SCHEMA = pa.schema([*KEPT_BASE_SCHEMA, pa.field(ROW_COLUMN, pa.int64())])


class IngestBatch:
    """One unit of input: canonical rows kept, malformed rows rejected (reason names the field)."""

    def __init__(self, kept: pa.Table, rejected: pa.Table):
        self.kept = kept
        self.rejected = rejected


def _partial_row(err: RecordError, raw: Any) -> dict[str, Any]:
    base = dict(err.partial)
    if isinstance(raw, dict):
        for k in PROBLEM_FIELDS:
            if k not in base and k in raw:
                base[k] = raw[k]
    row: dict[str, Any] = {}
    for k, typ in PROBLEM_FIELDS.items():
        v = base.get(k)
        # keep only what fits the column type; anything else lives in reject_detail
        try:
            pa.array([v], type=typ)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
            v = None
        row[k] = v
    src = row.get("source") or "?"
    rid = row.get("id") if isinstance(row.get("id"), str) else None
    row[PROBLEM_ID] = problem_id(src, rid) if rid else None
    return row


def _rejected_table(rows: list[dict[str, Any]]) -> pa.Table:
    schema = pa.schema([*_INGEST_SCHEMA, pa.field(REJECT_REASON, pa.string()), pa.field(REJECT_DETAIL, pa.string())])
    return pa.Table.from_pylist(rows, schema=schema)


def _convert(items: Iterable[tuple[int, dict[str, Any] | RecordError]]) -> IngestBatch:
    kept: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    for ordinal, item in items:
        raw: Any = item
        try:
            if isinstance(item, RecordError):
                raise item
            rec = normalize_record(item)
        except RecordError as err:
            row = _partial_row(err, raw)
            row[ROW_COLUMN] = ordinal
            row[REJECT_REASON] = err.reject_reason
            row[REJECT_DETAIL] = json.dumps(err.detail, ensure_ascii=False)
            rejected.append(row)
            continue
        rec[PROBLEM_ID] = problem_id(rec["source"], rec["id"])
        rec[ROW_COLUMN] = ordinal
        kept.append(rec)
    return IngestBatch(pa.Table.from_pylist(kept, schema=_INGEST_SCHEMA), _rejected_table(rejected))


def ingest_batches(
    stream: Iterable[dict[str, Any] | RecordError], batch_rows: int, skip_units: int = 0
) -> Iterator[tuple[int, IngestBatch]]:
    """Cut the input stream into units of `batch_rows` rows; yield (unit index, converted batch).

    Units before `skip_units` are read but not converted (used to resume an interrupted build).
    """
    unit, buf, ordinal = 0, [], 0
    for item in stream:
        buf.append((ordinal, item))
        ordinal += 1
        if len(buf) == batch_rows:
            if unit >= skip_units:
                yield unit, _convert(buf)
            unit, buf = unit + 1, []
    if buf and unit >= skip_units:
        yield unit, _convert(buf)
