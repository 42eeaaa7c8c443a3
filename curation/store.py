"""The output directory: shards, rejected rows, work units and the manifest (written last, atomically).

```
OUT/manifest.json       schema version, config, counts, shard files with row counts and sha256
OUT/problems/*.parquet  kept problems (zstd), deterministic order and sharding
OUT/rejected/*.parquet  dropped rows + reject_stage + reject_reason + reject_detail
OUT/report/             funnel, plots, index.html, timing.json
OUT/.work/              units of an unfinished build (removed when the build completes)
```
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from curation.storage import Loc, is_uri
from filters.contracts import MANIFEST, PROBLEMS_DIR, REJECTED_DIR, UserError

__all__ = [
    "MANIFEST",
    "PROBLEMS_DIR",
    "REJECTED_DIR",
    "REPORT_DIR",
    "WORK_DIR",
    "EXPORT_MARKER",
    "read_export_marker",
    "sha256_file",
    "atomic_write_text",
    "write_json",
    "read_manifest",
    "write_shards",
    "shard_files",
    "read_table",
    "iter_shard_batches",
    "duckdb_views",
    "require_build",
    "clear_outputs",
]

REPORT_DIR = "report"
WORK_DIR = ".work"
#: The file an export writes last into its directory (`curation.export`): its format, the build it
#: came from and the files it wrote, so that a later export knows it may replace them, and nothing else.
EXPORT_MARKER = ".codemix-export.json"


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def atomic_write_text(path: str | Path | Loc, text: str) -> None:
    """Write a file so that readers see either the old content or the whole new one (on object
    storage, one object's write: `curation.storage.Loc.write_bytes_atomic`)."""
    if is_uri(path) or isinstance(path, Loc):
        Loc.of(path).write_bytes_atomic(text.encode("utf-8"))
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)


def write_json(path: str | Path | Loc, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n")


def read_manifest(out: str | Path | Loc) -> dict[str, Any] | None:
    """A build's manifest, None when there is none; a UserError when it is not a JSON object."""
    path = Loc.of(out) / MANIFEST
    if not path.exists():
        return None
    if path.is_dir():
        raise UserError(f"{path} is a directory, not a build's manifest; pass the --out directory of a `codemix build`")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:  # not JSON, or not UTF-8
        raise UserError(
            f"{path} is damaged: not valid JSON ({e}); rebuild with the build's own command and --force"
        ) from None
    if not isinstance(manifest, dict):
        raise UserError(
            f"{path} is damaged: not a codemix manifest (a JSON {type(manifest).__name__}, not an object); "
            "rebuild with the build's own command and --force"
        )
    return manifest


def read_export_marker(directory: str | Path) -> dict[str, Any] | None:
    """What an export directory says of itself (`EXPORT_MARKER`), or None when it is not an export."""
    try:
        marker = json.loads((Path(directory) / EXPORT_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) and isinstance(marker.get("files"), list) else None


def require_build(out: str | Path) -> dict[str, Any]:
    """The manifest of a finished build, or a UserError saying what `out` is instead and what to do."""
    out = Path(out)
    if not out.is_dir():
        raise UserError(f"{out} is not a directory; pass the --out directory of a `codemix build`")
    manifest = read_manifest(out)
    if manifest is not None:
        return manifest
    if (out / WORK_DIR).is_dir():
        raise UserError(
            f"{out} has no {MANIFEST}: the build is unfinished; rerun the same `codemix build` command to resume it"
        )
    export = read_export_marker(out)
    if export is not None:
        raise UserError(
            f"{out} is a {export.get('format')} export of the build {export.get('build')}, not a build; "
            "pass the build's directory"
        )
    raise UserError(
        f"{out} is not a codemix build (no {MANIFEST}); pass the --out directory of a `codemix build`"
    )


def write_shards(
    batches: Iterable[pa.Table], directory: str | Path, shard_rows: int, schema: pa.Schema
) -> list[dict[str, Any]]:
    """Write batches as consecutive zstd shards of exactly `shard_rows` rows (the last may be shorter).

    Deterministic: the same rows in the same order give byte-identical files. Returns, per shard,
    the file name, row count and sha256. An empty input writes one empty shard, so readers
    always find the schema.
    """
    directory = Path(directory)
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    files: list[dict[str, Any]] = []
    pending: list[pa.Table] = []
    pending_rows = 0

    def flush(table: pa.Table) -> None:
        name = f"part-{len(files):05d}.parquet"
        path = directory / name
        pq.write_table(table, path, compression="zstd", row_group_size=max(1, min(shard_rows, 4096)))
        files.append({"file": f"{directory.name}/{name}", "rows": table.num_rows, "sha256": sha256_file(path)})

    for batch in batches:
        batch = batch.select(schema.names).cast(schema)
        pending.append(batch)
        pending_rows += batch.num_rows
        while pending_rows >= shard_rows:
            table = pa.concat_tables(pending)
            flush(table.slice(0, shard_rows))
            rest = table.slice(shard_rows)
            pending, pending_rows = [rest], rest.num_rows
    if pending_rows or not files:
        flush(pa.concat_tables(pending) if pending else schema.empty_table())
    return files


def shard_files(out: str | Path, kind: str = PROBLEMS_DIR) -> list[Path]:
    return sorted((Path(out) / kind).glob("*.parquet"))


def read_table(out: str | Path, kind: str = PROBLEMS_DIR) -> pa.Table:
    """All shards of one kind (`problems` or `rejected`) as one table."""
    files = shard_files(out, kind)
    if not files:
        raise UserError(f"{Path(out) / kind} holds no parquet shards")
    return pa.concat_tables([pq.read_table(f) for f in files], promote_options="default")


def iter_shard_batches(out: str | Path, kind: str = PROBLEMS_DIR, batch_rows: int = 1024) -> Iterator[pa.Table]:
    for f in shard_files(out, kind):
        for b in pq.ParquetFile(f).iter_batches(batch_size=batch_rows):
            yield pa.Table.from_batches([b])


def duckdb_views(out: str | Path):
    """A DuckDB connection with views `problems` and `rejected` over the build's shards."""
    import duckdb

    out = Path(out)
    require_build(out)
    con = duckdb.connect()
    for view in (PROBLEMS_DIR, REJECTED_DIR):
        files = shard_files(out, view)
        if files:
            paths = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
            con.execute(f"CREATE VIEW {view} AS SELECT * FROM read_parquet([{paths}], union_by_name=true)")
    return con


def clear_outputs(out: str | Path | Loc) -> None:
    """Remove what a build writes in `out` (used by --force); other files are left alone."""
    loc = Loc.of(out)
    for name in (MANIFEST, PROBLEMS_DIR, REJECTED_DIR, REPORT_DIR, WORK_DIR):
        p = loc / name
        if p.is_dir():
            p.rmtree()
        elif p.exists():
            p.unlink()
