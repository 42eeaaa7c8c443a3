"""Records as Arrow tables and as files: canonical JSONL (gzipped or not) and Parquet, read as
streams and written whole.

A line of JSONL that does not parse is yielded as a `RecordError` naming its file and line, so
that every reader of record files (build, verify, the local and hub loaders) rejects that row
alone and goes on. What a record is, and how it is checked, is `curation.schema`.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from filters.contracts import (
    KEPT_BASE_SCHEMA,
    PROBLEM_FIELDS,
    PROBLEM_SCHEMA,
    RecordError,
    problem_id,
)

__all__ = [
    "iter_canonical_file",
    "read_jsonl",
    "read_parquet",
    "records_to_table",
    "table_to_records",
    "write_jsonl",
    "write_parquet",
]


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
