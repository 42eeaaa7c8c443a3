"""Records as Arrow tables and as files: canonical JSONL (gzipped or not) and Parquet, read as
streams and written whole.

A line of JSONL that does not parse is yielded as a `RecordError` naming its file and line, so
that every reader of record files (build, verify, the local and hub loaders) rejects that row
alone and goes on. What a record is, and how it is checked, is `curation.schema`.
"""

from __future__ import annotations

import gzip
import json
import zlib
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
    UserError,
    problem_id,
)

__all__ = [
    "iter_canonical_file",
    "parquet_batches",
    "read_jsonl",
    "read_parquet",
    "records_to_table",
    "table_to_records",
    "text_lines",
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


_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
#: What reading a compressed file raises when it is cut short or corrupt.
_BROKEN_ARCHIVE = (EOFError, gzip.BadGzipFile, zlib.error)


def _open_bytes(path: Path) -> Any:
    try:
        return gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb")
    except IsADirectoryError:
        raise UserError(f"{path} is a directory; pass a JSONL file") from None
    except OSError as e:
        raise UserError(f"{path}: cannot be read ({e.strerror or e}); check the path and its permissions") from None


def text_lines(path: str | Path) -> Iterator[tuple[int, str | RecordError]]:
    """(line number, text) of each line of a (possibly gzipped) UTF-8 text file, read defensively.

    A UTF-8 byte-order mark is dropped. A line that is not UTF-8 is a RecordError naming the file,
    line and byte (`malformed:encoding`); a compressed file cut short (a partial download) or
    corrupt after its first line ends with a RecordError naming the last line read
    (`malformed:archive`). A file that cannot be read at all (not gzip although named `.gz`,
    UTF-16, unreadable) is a UserError naming the file and the reason.
    """
    path = Path(path)
    lineno = 0
    with _open_bytes(path) as f:
        lines = iter(f)
        while True:
            try:
                raw = next(lines)
            except StopIteration:
                return
            except _BROKEN_ARCHIVE as e:
                reason = str(e) or type(e).__name__
                if lineno == 0:
                    raise UserError(
                        f"{path}: cannot be read as gzip ({reason}); is it a whole .gz file? "
                        "download it again, or decompress it and pass the plain file"
                    ) from None
                yield lineno + 1, RecordError(
                    "archive",
                    f"{path}: the compressed data is cut short or corrupt after line {lineno} ({reason}); "
                    "the rest of the file is lost: download it again",
                    where={"file": str(path), "line": lineno + 1},
                )
                return
            except OSError as e:
                raise UserError(f"{path}: cannot be read ({e.strerror or e})") from None
            lineno += 1
            if lineno == 1:
                if raw.startswith(_UTF16_BOMS):
                    raise UserError(
                        f"{path}: UTF-16 text (it starts with a UTF-16 byte-order mark); codemix reads UTF-8: "
                        f"convert it, e.g. iconv -f UTF-16 -t UTF-8"
                    )
                if raw.startswith(_BOM):
                    raw = raw[len(_BOM) :]
            try:
                yield lineno, raw.decode("utf-8")
            except UnicodeDecodeError as e:
                yield lineno, RecordError(
                    "encoding",
                    f"{path}:{lineno}: not UTF-8 (byte 0x{raw[e.start]:02x} at byte {e.start + 1} of the line); "
                    "the file must be UTF-8",
                    where={"file": str(path), "line": lineno},
                )


def read_jsonl(path: str | Path) -> Iterator[dict[str, Any] | RecordError]:
    """Stream raw JSON objects from a (possibly gzipped) JSONL file.

    A line that is not valid JSON (a truncated one), not UTF-8, or beyond what a JSON reader takes
    (an integer of more than 4300 digits, nesting deeper than the interpreter's recursion limit) is
    yielded as a RecordError naming the file and the line, so that every reader of record files
    rejects that row alone and goes on; so is the end of a compressed file cut short
    (`text_lines`).
    """
    path = Path(path)
    for lineno, line in text_lines(path):
        if isinstance(line, RecordError):
            yield line
            continue
        if not line.strip():
            continue
        where = {"file": str(path), "line": lineno}
        try:
            yield json.loads(line)
        except json.JSONDecodeError as e:
            yield RecordError("json", f"{path}:{lineno}: not valid JSON ({e})", where=where)
        except RecursionError:
            yield RecordError("json", f"{path}:{lineno}: not readable JSON (nested too deeply)", where=where)
        except ValueError as e:  # an integer past the interpreter's digit limit
            yield RecordError("json", f"{path}:{lineno}: not readable JSON ({e})", where=where)


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


def parquet_batches(path: Path, batch_rows: int) -> Iterator[pa.RecordBatch]:
    """The record batches of one Parquet file; a file that is not Parquet, or is cut short or
    corrupt, is a UserError naming it and the reason (rows already yielded stay yielded)."""
    try:
        yield from pq.ParquetFile(path).iter_batches(batch_size=batch_rows)
    except (pa.ArrowException, OSError) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise UserError(
            f"{path}: not a readable Parquet file ({reason}); is it whole? write or download it again"
        ) from None


def read_parquet(path: str | Path, batch_rows: int = 1024) -> Iterator[dict[str, Any]]:
    """Stream rows of a Parquet file (or a directory of them) as dicts."""
    path = Path(path)
    files = sorted(path.glob("**/*.parquet")) if path.is_dir() else [path]
    for f in files:
        for batch in parquet_batches(f, batch_rows):
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
