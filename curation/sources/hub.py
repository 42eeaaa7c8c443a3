"""Rows streamed from the Hugging Face hub, always through data files, never a loading script.

`datasets` 4 and later refuse repositories' loading scripts, and TACO, APPS and LiveCodeBench
ship one. Those are read through their data files with a packaged builder
(`load_dataset("parquet" | "json", data_files="hf://datasets/...")`, `HubFiles`, or
`ReleaseFiles` where an option names the files); a JSON array
file (TACO-verified's single 2 GB `taco_verified.json`) is streamed with our own reader over
`fsspec`. Repositories without a script are read by name and config, which resolves the data
files their dataset card declares. Everything streams; memory stays flat whatever the size.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from curation.sources.columns import kinds_of_schema
from curation.sources.files import Check, checked_first
from curation.sources.jsonarray import iter_json_array
from filters.contracts import UserError

__all__ = [
    "HUB_URL",
    "HubFiles",
    "ReleaseFiles",
    "iter_hub_rows",
    "open_data_files",
    "hub_reachable",
]

#: Where dataset repositories are: `<HUB_URL>/<owner>/<name>/<file>` (fsspec's `hf://` protocol).
HUB_URL = "hf://datasets"
_BUILDERS = ("parquet", "json", "json-array")


@dataclass(frozen=True)
class HubFiles:
    """A hub dataset's data files: the builder that reads them and, per split, glob patterns.

    The first pattern of a split is where the hub holds it; later ones are other layouts a
    local snapshot may have (TACO's `train/*.arrow` beside `ALL/train-*.parquet`).
    """

    builder: str  # "parquet", "json" (JSON Lines) or "json-array" (one JSON array, streamed)
    splits: dict[str, tuple[str, ...]]

    def patterns(self, split: str | None) -> tuple[str, ...]:
        """The patterns of `split` ({} for an unknown or absent split)."""
        return self.splits.get(split or "", ())

    def urls(self, hub_id: str, split: str) -> list[str]:
        """URLs (`hf://datasets/...` patterns) of a split's files on the hub."""
        return [f"{HUB_URL}/{hub_id}/{self.splits[split][0]}"]

    def describe(self) -> str:
        """The hub files in words, e.g. 'Parquet files ALL/train-*.parquet, ALL/test-*.parquet'."""
        what = {
            "parquet": "Parquet files",
            "json": "JSON Lines files",
            "json-array": "one JSON array file",
        }
        tail = ", streamed" if self.builder == "json-array" else ""
        return f"{what[self.builder]} " + ", ".join(p[0] for p in self.splits.values()) + tail


@dataclass(frozen=True)
class ReleaseFiles:
    """A hub dataset read as JSON Lines files that a loader option names (LiveCodeBench's
    `version_tag=release_v3`: test.jsonl, test2.jsonl, test3.jsonl).

    `names(value)` lists the files of the option's value (a UserError for an unknown one);
    `pattern` is the files in words for a folder (`test*.jsonl`) and `described` for the hub.
    """

    option: str
    default: str
    names: Callable[[str], list[str]]
    pattern: str
    described: str

    def urls(self, hub_id: str, value: str | None = None) -> list[str]:
        """The hub URLs of the files `value` (default: `default`) names."""
        return [f"{HUB_URL}/{hub_id}/{name}" for name in self.names(value or self.default)]

    def describe(self) -> str:
        """The hub files in words."""
        return f"JSON Lines files {self.described} (up to {self.option})"


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
    for mod, attr in (
        ("huggingface_hub.constants", "HF_HUB_OFFLINE"),
        ("datasets.config", "HF_HUB_OFFLINE"),
    ):
        m = sys.modules.get(mod)
        if m is not None and hasattr(m, attr):
            setattr(m, attr, True)


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__


def _json_array_rows(urls: list[str]) -> Iterator[Any]:
    import fsspec

    for url in urls:
        # a byte that is not UTF-8 costs its row at ingestion (`curation.ingest.check_text`)
        opened = fsspec.open(url, "rt", encoding="utf-8", errors="surrogateescape", compression="infer")
        with opened as stream:
            yield from iter_json_array(stream, url)


def open_data_files(
    builder: str, urls: list[str], split: str, label: str, check: Check | None = None
) -> Iterator[Any]:
    """Rows of data files (hub `hf://` URLs, or local paths) through `builder`, columns checked.

    Parquet and JSON Lines go through `datasets.load_dataset(builder, data_files=..., streaming=
    True)`; their features (or, when `datasets` has none yet, the first row) are checked before
    any row is yielded. Raises what `datasets` raises; `iter_hub_rows` turns that into UserError.
    """
    if builder not in _BUILDERS:
        raise ValueError(f"unknown builder {builder!r}; use one of {', '.join(_BUILDERS)}")
    if builder == "json-array":
        return checked_first(_json_array_rows(urls), label, check)
    import datasets

    ds = datasets.load_dataset(builder, data_files={split: urls}, split=split, streaming=True)
    return _checked_dataset(ds, label, check)


def _checked_dataset(ds: Any, label: str, check: Check | None) -> Iterator[Any]:
    features = getattr(ds, "features", None)
    if check is not None and features is not None:
        check(label, kinds_of_schema(features.arrow_schema))
        check = None
    return checked_first(iter(ds), label, check)


def iter_hub_rows(
    name: str,
    hub_id: str,
    split: str = "train",
    config: str | None = None,
    files: HubFiles | None = None,
    urls: list[str] | None = None,
    check: Check | None = None,
) -> Iterator[dict[str, Any]]:
    """Stream a hub dataset; fail fast with a UserError that says how to use a local copy.

    With `files` (or explicit `urls`, read as JSON Lines) the data files are read directly;
    otherwise the repository is loaded by name and `config`. With HF_HUB_OFFLINE=1 only the
    local `datasets` cache is tried. Otherwise a quick TCP check of the hub endpoint runs first,
    so an offline machine fails in seconds, not after retries. `check` sees the columns before
    any row is converted.
    """
    how = f"download it and pass --source {name}:/path/to/local/copy"
    if _offline():
        _sync_offline_flags()
    else:
        why = hub_reachable()
        if why:
            raise UserError(f"{name}: cannot load {hub_id} from the Hugging Face hub: {why}; {how}")
    label = f"{name}: {hub_id}" + (f" (config {config})" if config else "") + f" split {split}"
    try:
        if files is not None or urls is not None:
            builder = files.builder if files is not None else "json"
            todo = urls if urls is not None else files.urls(hub_id, split)  # type: ignore[union-attr]
            rows = open_data_files(builder, todo, split, label, check)
        else:
            import datasets

            ds = datasets.load_dataset(hub_id, name=config, split=split, streaming=True)
            rows = _checked_dataset(ds, label, check)
    except UserError:
        raise
    except Exception as e:  # network, gated repo, missing config or split...
        raise UserError(
            f"{name}: cannot load {hub_id} (config={config}, split={split}) from the hub: {_first_line(e)}; {how}"
        ) from None
    return _guarded(rows, name, hub_id, how)


def _guarded(rows: Iterator[Any], name: str, hub_id: str, how: str) -> Iterator[dict[str, Any]]:
    try:
        yield from rows
    except UserError:
        raise
    except Exception as e:  # the stream fetches files lazily: network errors surface here
        raise UserError(
            f"{name}: reading {hub_id} from the hub failed: {_first_line(e)}; {how}"
        ) from None
