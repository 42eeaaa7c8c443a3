"""The canonical problem record in the build: normalising and checking it, and reading/writing it.

The record's fields, Arrow types and `RecordError` are defined once, in `filters.contracts` (the
names below are re-exported from there). Every source is converted to this record; the same fields
are the canonical JSONL format. Stages add columns to it but never change these fields.
"""

from __future__ import annotations

import gzip
import io
import json
import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from filters.bigints import BIG_INT_DIGITS, big_ints
from filters.contracts import (
    KEPT_BASE_SCHEMA,
    PROBLEM_FIELDS,
    PROBLEM_SCHEMA,
    REJECTED_SCHEMA,
    SCHEMA_VERSION,
    TEST_STRUCT,
    TEST_TYPES,
    RecordError,
    problem_id,
)

__all__ = [
    "SCHEMA_VERSION",
    "TEST_TYPES",
    "TEST_STRUCT",
    "PROBLEM_FIELDS",
    "PROBLEM_SCHEMA",
    "KEPT_BASE_SCHEMA",
    "REJECTED_SCHEMA",
    "RecordError",
    "blank_record",
    "normalize_record",
    "validate_record",
    "problem_id",
    "records_to_table",
    "table_to_records",
    "read_jsonl",
    "write_jsonl",
    "read_parquet",
    "write_parquet",
    "iter_canonical_file",
    "BIG_INT_DIGITS",
    "big_ints",
]

_REQUIRED = ("id", "source", "statement", "language", "test_type")

_LIST_FIELDS = (
    "tests",
    "solutions",
    "incorrect_solutions",
    "tags",
    "solution_languages",
    "incorrect_solution_languages",
)
#: each program list and the list naming its programs' languages (empty: all Python)
_LANGUAGE_LISTS = {
    "solutions": "solution_languages",
    "incorrect_solutions": "incorrect_solution_languages",
}
_OPTIONAL_STR = (
    "starter_code",
    "entry_point",
    "test_code",
    "checker",
    "difficulty_label",
    "source_prompt",
)


def _as_str(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def blank_record(fields: dict[str, Any]) -> dict[str, Any]:
    """A full record in field order: `fields` over the defaults (None, empty lists, python)."""
    rec: dict[str, Any] = {name: [] if name in _LIST_FIELDS else None for name in PROBLEM_FIELDS}
    rec["language"] = "python"
    rec.update(fields)
    return rec


def normalize_record(raw: dict[str, Any]) -> dict[str, Any]:
    """Fill defaults for missing optional fields and coerce harmless variants; then validate.

    Raises RecordError naming the first bad field. Unknown keys are dropped.
    """
    if not isinstance(raw, dict):
        raise RecordError("<row>", f"expected a JSON object, got {type(raw).__name__}")
    rec: dict[str, Any] = {}
    for name in PROBLEM_FIELDS:
        rec[name] = raw.get(name)
    if rec["language"] is None:
        rec["language"] = "python"
    if rec["id"] is not None and not isinstance(rec["id"], str) and isinstance(rec["id"], int):
        rec["id"] = str(rec["id"])
    for name in _LIST_FIELDS:
        if rec[name] is None:
            rec[name] = []
    tests = rec["tests"]
    if isinstance(tests, list):
        fixed = []
        for i, t in enumerate(tests):
            if not isinstance(t, dict) or "input" not in t or "output" not in t:
                raise RecordError("tests", f"test {i} must be an object with 'input' and 'output'")
            fixed.append({"input": _as_str(t["input"]), "output": _as_str(t["output"])})
        rec["tests"] = fixed
    for name in ("time_limit_s", "memory_limit_mb"):
        v = rec[name]
        if isinstance(v, bool) or (v is not None and not isinstance(v, (int, float))):
            raise RecordError(name, f"must be a number or null, got {v!r}")
        if v is not None:
            v = float(v)
            if not math.isfinite(v) or v <= 0:
                raise RecordError(name, f"must be positive, got {v!r}")
            rec[name] = v
    validate_record(rec)
    return rec


def validate_record(rec: dict[str, Any]) -> None:
    """Check a record against the schema; raise RecordError naming the bad field."""
    for name in _REQUIRED:
        v = rec.get(name)
        if not isinstance(v, str):
            raise RecordError(name, "is required and must be a string")
    if not rec["id"].strip():
        raise RecordError("id", "must not be empty")
    if not rec["source"].strip() or "/" in rec["source"]:
        raise RecordError("source", f"must be a non-empty name without '/', got {rec['source']!r}")
    if not rec["statement"].strip():
        raise RecordError("statement", "must not be empty")
    if rec["test_type"] not in TEST_TYPES:
        raise RecordError("test_type", f"must be one of {', '.join(TEST_TYPES)}, got {rec['test_type']!r}")
    for name in _OPTIONAL_STR:
        v = rec.get(name)
        if v is not None and not isinstance(v, str):
            raise RecordError(name, "must be a string or null")
    if rec.get("tests_complete") not in (None, True, False):
        raise RecordError("tests_complete", "must be true, false or null")
    for name in ("solutions", "incorrect_solutions", "tags"):
        v = rec.get(name)
        if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
            raise RecordError(name, "must be a list of strings")
    for programs, name in _LANGUAGE_LISTS.items():
        v = rec.get(name)
        if v is None:
            continue
        if not isinstance(v, list) or not all(isinstance(s, str) and s for s in v):
            raise RecordError(name, "must be a list of language names")
        if v and len(v) != len(rec[programs]):
            raise RecordError(name, f"names {len(v)} languages for {len(rec[programs])} {programs}")
    tests = rec.get("tests")
    if not isinstance(tests, list):
        raise RecordError("tests", "must be a list of {input, output}")
    for i, t in enumerate(tests):
        if not (isinstance(t, dict) and isinstance(t.get("input"), str) and isinstance(t.get("output"), str)):
            raise RecordError("tests", f"test {i} must have string 'input' and 'output'")
    tt = rec["test_type"]
    if tt in ("call", "assert") and not rec.get("entry_point"):
        raise RecordError("entry_point", f"is required for test_type={tt!r}")
    if tt == "call":
        for i, t in enumerate(tests):
            try:
                with big_ints():
                    args = json.loads(t["input"])
            except json.JSONDecodeError as e:
                raise RecordError("tests", f"test {i}: call input must be a JSON array ({e.msg})") from None
            except ValueError as e:
                raise RecordError("tests", f"test {i}: call input: {e}") from None
            if not isinstance(args, list):
                raise RecordError("tests", f"test {i}: call input must be a JSON array of arguments")
            try:
                with big_ints():
                    json.loads(t["output"])
            except json.JSONDecodeError as e:
                raise RecordError("tests", f"test {i}: call output must be JSON ({e.msg})") from None
            except ValueError as e:
                raise RecordError("tests", f"test {i}: call output: {e}") from None
    if tt == "assert" and not rec.get("test_code"):
        raise RecordError("test_code", "is required for test_type='assert'")
    for name in ("time_limit_s", "memory_limit_mb"):
        v = rec.get(name)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0):
            raise RecordError(name, "must be a positive number or null")


def records_to_table(records: Iterable[dict[str, Any]], with_problem_id: bool = True) -> pa.Table:
    """Canonical records (already normalised) to an Arrow table in schema order."""
    rows = list(records)
    schema = KEPT_BASE_SCHEMA if with_problem_id else PROBLEM_SCHEMA
    cols: dict[str, list[Any]] = {f.name: [] for f in schema}
    for r in rows:
        for name in cols:
            if name == "problem_id":
                cols[name].append(r.get("problem_id") or problem_id(r["source"], r["id"]))
            else:
                cols[name].append(r.get(name))
    return pa.table(cols, schema=schema)


def table_to_records(table: pa.Table, fields: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Rows of a table as dicts, restricted to the canonical fields unless `fields` says otherwise."""
    names = list(fields) if fields is not None else [n for n in PROBLEM_FIELDS if n in table.column_names]
    return table.select(names).to_pylist()


def _open_text(path: Path) -> io.TextIOBase:
    if str(path).endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def read_jsonl(path: str | Path) -> Iterator[dict[str, Any] | RecordError]:
    """Stream raw JSON objects from a (possibly gzipped) JSONL file.

    A line that is not valid JSON (a truncated one) is yielded as a RecordError naming the file and
    the line, so that every reader of record files rejects that row alone and goes on.
    """
    path = Path(path)
    with _open_text(path) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                yield RecordError(
                    "json",
                    f"{path}:{lineno}: not valid JSON ({e.msg})",
                    where={"file": str(path), "line": lineno},
                )


def write_jsonl(records: Iterable[dict[str, Any]], path: str | Path) -> int:
    """Write records as JSONL (gzipped when the name ends in .gz); returns the count."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    opener = gzip.open if str(path).endswith(".gz") else open
    n = 0
    with opener(path, "wt", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
            n += 1
    return n


def read_parquet(path: str | Path, batch_rows: int = 1024) -> Iterator[dict[str, Any]]:
    """Stream rows of a Parquet file (or a directory of them) as dicts."""
    path = Path(path)
    files = sorted(path.glob("**/*.parquet")) if path.is_dir() else [path]
    for f in files:
        pf = pq.ParquetFile(f)
        for batch in pf.iter_batches(batch_size=batch_rows):
            yield from batch.to_pylist()


def write_parquet(table: pa.Table, path: str | Path) -> None:
    """Write a table as zstd Parquet, atomically (temp file then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp, compression="zstd")
    tmp.replace(path)


def iter_canonical_file(path: str | Path) -> Iterator[dict[str, Any] | RecordError]:
    """Raw rows of a canonical JSONL(.gz) or Parquet file or directory."""
    path = Path(path)
    if path.is_dir() or path.suffix == ".parquet":
        yield from read_parquet(path)
    else:
        yield from read_jsonl(path)
