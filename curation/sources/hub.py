"""Raw rows from the Hugging Face hub (streaming) or from local Parquet/JSONL copies.

Everything streams: Parquet by record batches, JSONL line by line, the hub with
`datasets.load_dataset(..., streaming=True)`. Memory stays flat whatever the file size.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.ipc  # noqa: F401  (registers pa.ipc)
import pyarrow.parquet as pq

from curation.schema import RecordError, read_jsonl
from filters.errors import UserError

__all__ = ["iter_local_rows", "iter_hub_rows", "hub_reachable", "DATA_SUFFIXES"]

DATA_SUFFIXES = (".parquet", ".arrow", ".jsonl", ".jsonl.gz", ".ndjson")


def _data_files(path: Path, split: str | None) -> list[Path]:
    """Data files under `path`; in a hub snapshot with several splits, only `split`'s files."""
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith(DATA_SUFFIXES))
    if split:
        mine = [
            f for f in files if split in f.relative_to(path).parts[:-1] or f.name.startswith(split)
        ]
        files = mine or files
    return files


def iter_local_rows(
    path: str | Path, split: str | None = None, batch_rows: int = 256
) -> Iterator[dict[str, Any] | RecordError]:
    """Rows of a Parquet, Arrow IPC or JSONL(.gz) file, or of every such file under a directory, in name order.

    An unparsable JSONL line comes out as a RecordError so the caller can reject it and go on.
    With `split`, a directory holding several splits (train/..., test-....parquet) gives only the
    files of that split (all files when none is named after it). A missing path raises
    UserError at the call, before iteration.
    """
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: no such file or directory; check the path after 'name:'")
    files = _data_files(path, split)
    if not files:
        raise UserError(f"{path}: no {', '.join(DATA_SUFFIXES)} files in this directory")
    return _rows_of(files, batch_rows)


def _rows_of(files: list[Path], batch_rows: int) -> Iterator[dict[str, Any] | RecordError]:
    for f in files:
        if f.name.endswith(".parquet"):
            for batch in pq.ParquetFile(f).iter_batches(batch_size=batch_rows):
                yield from batch.to_pylist()
        elif f.name.endswith(".arrow"):
            yield from _arrow_rows(f)
        else:
            yield from read_jsonl(f)


def _arrow_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of an Arrow IPC file as `datasets` caches and some hub repos (TACO) store them."""
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


def hub_reachable(timeout_s: float = 3.0) -> str | None:
    """None when the hub endpoint answers a TCP connect, else a short reason."""
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    url = urlparse(endpoint)
    host, port = (
        url.hostname or "huggingface.co",
        url.port or (443 if url.scheme == "https" else 80),
    )
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except OSError as e:
        return f"cannot connect to {host}:{port} ({e.strerror or e.__class__.__name__})"


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")


def _sync_offline_flags() -> None:
    """huggingface_hub and datasets read HF_HUB_OFFLINE once, at import: honour a later setting too."""
    import sys

    for mod, attr in (("huggingface_hub.constants", "HF_HUB_OFFLINE"), ("datasets.config", "HF_HUB_OFFLINE")):
        m = sys.modules.get(mod)
        if m is not None and hasattr(m, attr):
            setattr(m, attr, True)


def iter_hub_rows(
    name: str,
    hub_id: str,
    split: str = "train",
    config: str | None = None,
    data_files: str | list[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """Stream a hub dataset; fail fast with a UserError that says how to use a local copy.

    With HF_HUB_OFFLINE=1 only the local `datasets` cache is tried. Otherwise a quick TCP check
    of the hub endpoint runs first, so an offline machine fails in seconds, not after retries.
    """
    how = f"download it and pass --source {name}:/path/to/local/parquet-or-jsonl"
    if _offline():
        _sync_offline_flags()
    else:
        why = hub_reachable()
        if why:
            raise UserError(f"{name}: cannot load {hub_id} from the Hugging Face hub: {why}; {how}")
    try:
        import datasets

        if data_files is not None:
            ds = datasets.load_dataset("json", data_files=data_files, split=split, streaming=True)
        else:
            ds = datasets.load_dataset(hub_id, name=config, split=split, streaming=True)
    except Exception as e:  # network, gated repo, missing config, script-based repo...
        msg = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        raise UserError(
            f"{name}: cannot load {hub_id} (config={config}, split={split}) from the hub: {msg}; {how}"
        ) from None
    return _guarded(ds, name, hub_id, how)


def _guarded(ds: Any, name: str, hub_id: str, how: str) -> Iterator[dict[str, Any]]:
    try:
        yield from ds
    except Exception as e:  # the stream fetches files lazily: network errors surface here
        msg = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        raise UserError(f"{name}: reading {hub_id} from the hub failed: {msg}; {how}") from None
