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

__all__ = [
    "ROW_COLUMN",
    "SCHEMA_STAGE",
    "MAX_RECORD_BYTES",
    "IngestBatch",
    "check_text",
    "ingest_batches",
    "record_bytes",
]

#: The schema check's name in a build's counts (rows that do not fit the record are dropped there).
SCHEMA_STAGE = "schema"
_INGEST_SCHEMA = pa.schema([*KEPT_BASE_SCHEMA, pa.field(ROW_COLUMN, pa.int64())])
#: The default of `--max-record-bytes`: a record (its statement, tests, solutions and every other
#: text field, UTF-8) larger than this is rejected as `too_large` before any stage sees it. The
#: largest rows of the data this project reads are far below it (CodeContests' 0.25 MB).
MAX_RECORD_BYTES = 16 * 1024 * 1024


def record_bytes(value: Any, strict: bool = False) -> int:
    """The size of a record's text, in UTF-8 bytes (every string of it, nested ones included);
    `strict`: a UnicodeEncodeError for a string that is not text (a lone surrogate)."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "strict" if strict else "surrogatepass"))
    if isinstance(value, dict):
        return sum(record_bytes(v, strict) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(record_bytes(v, strict) for v in value)
    return 0


def _text_error(field: str, e: UnicodeEncodeError) -> RecordError:
    ch = ord(e.object[e.start])
    if 0xDC80 <= ch <= 0xDCFF:  # a byte a reader let through as it was (`surrogateescape`)
        what = f"not UTF-8 (byte 0x{ch - 0xDC00:02x} at character {e.start + 1})"
    else:  # a `\\ud800` escape in JSON: half of a pair, not a character
        what = f"holds a lone surrogate (\\u{ch:04x} at character {e.start + 1}), which is not text"
    return RecordError(field, f"{what}; the text must be UTF-8")


def check_text(rec: dict[str, Any], limit: int | None) -> None:
    """A RecordError for a record whose text is not UTF-8 (a lone surrogate, a byte let through)
    or, with `limit`, whose size (`record_bytes`) is over it."""
    sizes = {}
    for k in PROBLEM_FIELDS:
        try:
            sizes[k] = record_bytes(rec.get(k), strict=True)
        except UnicodeEncodeError as e:
            raise _text_error(k, e) from None
    size = sum(sizes.values())
    if limit is None or size <= limit:
        return
    largest = max(sizes, key=lambda k: sizes[k])
    raise RecordError(
        largest,
        f"the record is {size:,} bytes, over the limit of {limit:,} (--max-record-bytes); "
        f"its largest field, {largest}, is {sizes[largest]:,} bytes",
        # the row's name and kinds; its texts stay out of rejected/ (they are what is too large)
        partial={k: rec.get(k) if k in ("id", "source", "language", "test_type") else None for k in PROBLEM_FIELDS},
        reason="too_large",
        where={"bytes": size, "limit": limit},
    )


class IngestBatch:
    """One unit of input: canonical rows kept, malformed rows rejected (reason names the field)."""

    def __init__(self, kept: pa.Table, rejected: pa.Table):
        self.kept = kept
        self.rejected = rejected


def _partial_row(err: RecordError, raw: Any, ordinal: int) -> dict[str, Any]:
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
    rid = row.get("id") if isinstance(row.get("id"), str) and row["id"].strip() else None
    if rid is not None:
        row[PROBLEM_ID] = problem_id(src, rid)
    else:  # no id of its own: `SOURCE#row-N` (no '/'), which no real `SOURCE/ID` can equal
        row["id"] = None
        row[PROBLEM_ID] = f"{src.replace('/', '_')}#row-{err.where.get('row', ordinal)}"
    return row
def _rejected_table(rows: list[dict[str, Any]]) -> pa.Table:
    schema = pa.schema([*_INGEST_SCHEMA, pa.field(REJECT_REASON, pa.string()), pa.field(REJECT_DETAIL, pa.string())])
    return pa.Table.from_pylist(rows, schema=schema)


def _convert(items: Iterable[tuple[int, dict[str, Any] | RecordError]], max_record_bytes: int | None) -> IngestBatch:
    kept: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    for ordinal, item in items:
        raw: Any = item
        try:
            if isinstance(item, RecordError):
                raise item
            rec = normalize_record(item)
            check_text(rec, max_record_bytes)
        except RecordError as err:
            row = _partial_row(err, raw, ordinal)
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
    stream: Iterable[dict[str, Any] | RecordError],
    batch_rows: int,
    skip_units: int = 0,
    max_record_bytes: int | None = MAX_RECORD_BYTES,
) -> Iterator[tuple[int, IngestBatch]]:
    """Cut the input stream into units of `batch_rows` rows; yield (unit index, converted batch).

    Units before `skip_units` are read but not converted (used to resume an interrupted build).
    A record of more than `max_record_bytes` (`record_bytes`; None: no limit) is rejected as
    `too_large`, with its size; one whose text is not UTF-8 (a lone surrogate) as `malformed:FIELD`.
    """
    unit, buf, ordinal = 0, [], 0
    for item in stream:
        buf.append((ordinal, item))
        ordinal += 1
        if len(buf) == batch_rows:
            if unit >= skip_units:
                yield unit, _convert(buf, max_record_bytes)
            unit, buf = unit + 1, []
    if buf and unit >= skip_units:
        yield unit, _convert(buf, max_record_bytes)
