"""Local data files: which files of a path to read, and their rows, streamed.

Formats by name: `.parquet`, `.arrow` (Arrow IPC stream or file, as `datasets` saves them),
`.jsonl`/`.ndjson` (JSON Lines), `.json` (a JSON array, streamed, or JSON Lines), each JSON form
also gzipped (`.gz`). Everything streams: Parquet by record batches, JSON row by row.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import pyarrow as pa
import pyarrow.ipc  # noqa: F401  (registers pa.ipc)
import pyarrow.parquet as pq

from curation.record_files import parquet_batches, read_jsonl
from curation.schema import RecordError
from curation.sources.columns import kinds_of_row, kinds_of_schema
from curation.sources.jsonarray import iter_json_array
from filters.contracts import UserError

__all__ = ["DATA_SUFFIXES", "Check", "find_data_files", "read_rows", "json_rows", "checked_first"]

DATA_SUFFIXES = (".parquet", ".arrow", ".jsonl", ".jsonl.gz", ".ndjson", ".json", ".json.gz")
#: `check(label, found_columns)` raises UserError when a file's columns do not fit.
Check = Callable[[str, dict[str, str]], None]
_BROKEN = (EOFError, gzip.BadGzipFile, zlib.error)


def _is_data(p: Path) -> bool:
    return p.is_file() and p.name.endswith(DATA_SUFFIXES)


def find_data_files(
    path: str | Path,
    split: str | None = None,
    config: str | None = None,
    patterns: tuple[str, ...] = (),
) -> list[Path]:
    """The data files to read under `path`, in name order; UserError when there are none.

    A file is itself. In a directory (a hub snapshot or a folder of files): the subdirectory
    named `config` if there is one; then the first of `patterns` (globs, the source's known
    layouts, e.g. TACO's `ALL/train-*.parquet` before its `train/*.arrow`) that matches, so a
    snapshot holding two layouts is read once; else every data file, and with `split` only those
    named after it (a `train/` folder, `test-0000.parquet`) when any are.
    """
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: no such file or directory; check the path after 'name:'")
    if path.is_file():
        if not path.name.endswith(DATA_SUFFIXES):
            raise UserError(
                f"{path}: not a data file; use one of {', '.join(DATA_SUFFIXES)} (or a directory of them)"
            )
        return [path]
    root = path / config if config and (path / config).is_dir() else path
    for pattern in patterns:
        hits = sorted(p for p in root.glob(pattern) if _is_data(p))
        if hits:
            return hits
    files = sorted(p for p in root.rglob("*") if _is_data(p))
    if split:
        mine = [
            f for f in files if split in f.relative_to(root).parts[:-1] or f.name.startswith(split)
        ]
        files = mine or files
    if not files:
        looked = ", ".join([*patterns, *(f"*{s}" for s in DATA_SUFFIXES)])
        raise UserError(f"{path}: no data files in this directory (looked for {looked})")
    return files


def open_text(path: Path, errors: str = "strict") -> TextIO:
    """A text stream of a (possibly gzipped) UTF-8 file; `errors` as `open`'s."""
    if path.name.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors=errors)
    return open(path, encoding="utf-8", errors=errors)


def _starts_an_array(path: Path) -> bool:
    try:
        with open_text(path, "surrogateescape") as f:
            while (c := f.read(1)) and c in " \t\r\n\ufeff":
                pass
    except _BROKEN:
        return False  # JSON Lines then: `read_jsonl` says what is wrong, line by line
    except OSError as e:
        raise UserError(f"{path}: cannot be read ({e.strerror or e})") from None
    return c == "["


def json_rows(path: Path) -> Iterator[Any]:
    """Rows of a `.json(.gz)` file: a JSON array (streamed) when it starts with '[', else JSON
    Lines. In an array, a byte that is not UTF-8 is let through (`surrogateescape`) and costs the
    row that holds it at ingestion (`malformed:FIELD`, "not UTF-8"); compressed data cut short ends
    the file with one RecordError saying so."""
    if not _starts_an_array(path):
        yield from read_jsonl(path)
        return
    with open_text(path, "surrogateescape") as stream:
        try:
            yield from iter_json_array(stream, str(path))
        except _BROKEN as e:
            yield RecordError(
                "archive",
                f"{path}: the compressed data is cut short or corrupt ({e or type(e).__name__}); "
                "the rest of the file is lost: download it again",
                where={"file": str(path)},
            )


def _unreadable(path: Path, kind: str, e: BaseException) -> UserError:
    reason = str(e).splitlines()[0] if str(e) else type(e).__name__
    return UserError(f"{path}: not a readable {kind} file ({reason}); is it whole? write or download it again")


def _arrow_schema(path: Path) -> pa.Schema:
    try:
        return _arrow_schema_of(path)
    except (pa.ArrowException, OSError) as e:
        raise _unreadable(path, "Arrow", e) from None


def _arrow_schema_of(path: Path) -> pa.Schema:
    with pa.memory_map(str(path)) as src:
        try:
            return pa.ipc.open_stream(src).schema
        except pa.ArrowInvalid:
            src.seek(0)
            return pa.ipc.open_file(src).schema


def _arrow_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of an Arrow IPC file, stream or file format (`datasets` caches and TACO's `train/`);
    a file that is not Arrow, or is cut short, is a UserError naming it."""
    try:
        yield from _arrow_rows_of(path)
    except (pa.ArrowException, OSError) as e:
        raise _unreadable(path, "Arrow", e) from None


def _arrow_rows_of(path: Path) -> Iterator[dict[str, Any]]:
    with pa.memory_map(str(path)) as src:
        try:
            reader: Any = pa.ipc.open_stream(src)
            batches = iter(reader)
        except pa.ArrowInvalid:
            src.seek(0)
            reader = pa.ipc.open_file(src)
            batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
        for batch in batches:
            yield from batch.to_pylist()


def _file_rows(f: Path, check: Check | None, batch_rows: int) -> Iterator[Any]:
    if f.name.endswith(".parquet"):
        for batch in parquet_batches(f, batch_rows):
            yield from batch.to_pylist()
    elif f.name.endswith(".arrow"):
        yield from _arrow_rows(f)
    elif f.name.endswith((".json", ".json.gz")):
        yield from _in_their_files_source(checked_first(json_rows(f), str(f), check))
    else:
        yield from _in_their_files_source(checked_first(read_jsonl(f), str(f), check))


def _in_their_files_source(rows: Iterator[Any]) -> Iterator[Any]:
    """One JSON file's rows, each RecordError (a line that does not parse) given the `source` the
    file's rows name, the previous row's (else the next's), in its `partial`: a canonical file's
    truncated line is a rejected row of that file's source, not of a source of its own. A source
    whose rows do not name theirs (`Source.keep_row_source` false) ignores it."""
    named: str | None = None
    waiting: list[RecordError] = []
    for row in rows:
        if not isinstance(row, (dict, RecordError)):  # a JSON value that is not an object
            row = RecordError("<row>", f"expected an object, got {type(row).__name__}")
        if isinstance(row, RecordError):
            if named is None:
                waiting.append(row)
                continue
            row.partial.setdefault("source", named)
            yield row
            continue
        src = row.get("source") if isinstance(row, dict) else None
        named = src if isinstance(src, str) and src else named
        for err in waiting:
            if named is not None:
                err.partial.setdefault("source", named)
            yield err
        waiting = []
        yield row
    yield from waiting


def checked_first(rows: Iterator[Any], label: str, check: Check | None) -> Iterator[Any]:
    """The rows, the first object among them checked before it is yielded (JSON has no schema)."""
    checked = check is None
    for row in rows:
        if not checked and isinstance(row, dict):
            check(label, kinds_of_row(row))  # type: ignore[misc]
            checked = True
        yield row


def read_rows(
    files: list[Path], check: Check | None = None, batch_rows: int = 256
) -> Iterator[dict[str, Any] | RecordError]:
    """Rows of `files` in order. With `check`, every Parquet/Arrow schema is checked before the
    first row, and each JSON file's first row before it is yielded. An unparsable JSON line comes
    out as a RecordError so the caller can reject it and go on."""
    if check is not None:
        for f in files:
            if f.name.endswith(".parquet"):
                try:
                    schema = pq.read_schema(f)
                except (pa.ArrowException, OSError) as e:
                    raise _unreadable(f, "Parquet", e) from None
                check(str(f), kinds_of_schema(schema))
            elif f.name.endswith(".arrow"):
                check(str(f), kinds_of_schema(_arrow_schema(f)))
    for f in files:
        yield from _file_rows(f, check, batch_rows)
