"""Problem sources: a registry of loaders that turn raw rows into canonical records.

`--source` takes a registry name (`mbpp`), `name:/path` (a local copy of a hub dataset or a
local file in another place), or a bare path to a canonical JSONL/Parquet file.

Local sources with no path look for their file in, in order: `$CODEMIX_DATA`, `../shared/data`
relative to the current directory, and `../shared/data` beside the repository checkout.
Hub sources with no path stream from the Hugging Face hub; an unreachable hub is a UserError
that says how to point the source at a local copy.

Each converter is a pure function `convert(row, index, **options) -> dict | None` that raises
RecordError for a row it cannot convert; None means "not selected" (another language, outside
a date window) and the row is skipped.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curation.schema import RecordError, iter_canonical_file
from curation.sources.code_contests import convert_code_contests
from curation.sources.codeforces import convert_codeforces
from curation.sources.deepcoder import convert_deepcoder
from curation.sources.hub import DATA_SUFFIXES, iter_hub_rows, iter_local_rows
from curation.sources.lcb import check_lcb_options, convert_lcb
from curation.sources.local import (
    convert_canonical,
    convert_codecontests_subset,
    convert_humaneval,
    convert_humaneval_x,
    convert_leetcodedataset,
    convert_mbpp,
)
from curation.sources.paths import data_dirs, default_path
from curation.sources.primeintellect import convert_primeintellect
from curation.sources.taco import convert_taco
from filters.errors import UserError

__all__ = [
    "Source",
    "SOURCES",
    "get_source",
    "parse_source_arg",
    "iter_source",
    "source_options",
    "data_dirs",
    "default_path",
]

Converter = Callable[..., "dict[str, Any] | None"]
_LOADER_OPTIONS = ("split", "config", "version_tag")


@dataclass(frozen=True)
class Source:
    """One registered source: where its rows come from and how they become canonical records."""

    name: str
    kind: str  # "hub", "local" or "builtin"
    description: str
    test_types: tuple[str, ...]
    convert: Converter
    hub_id: str | None = None
    split: str = "train"
    config: str | None = None
    default_file: str | None = None
    check_options: Callable[..., None] | None = None
    keep_row_source: bool = False
    rows: Callable[..., Iterator[Any]] | None = field(default=None, repr=False)


def _lcb_files(version_tag: str = "release_v6") -> list[str]:
    """The JSONL files of a LiveCodeBench release (*unverified*: test.jsonl, test2.jsonl, ...)."""
    try:
        n = int(str(version_tag).rsplit("v", 1)[1])
    except (IndexError, ValueError):
        raise UserError(
            f"lcb: unknown version_tag {version_tag!r}; use release_v1 ... release_v6"
        ) from None
    base = "hf://datasets/livecodebench/code_generation_lite/"
    return [base + ("test.jsonl" if i == 1 else f"test{i}.jsonl") for i in range(1, n + 1)]


def _demo_rows(**_: Any) -> Iterator[Any]:
    from curation.demo import demo_records

    return demo_records()


_ALL: list[Source] = [
    Source("taco", "hub", "TACO: 26k competitive problems, stdio and call tests", ("stdio", "call"),
           convert_taco, hub_id="BAAI/TACO"),
    Source("taco-verified", "hub", "TACO with failing solutions removed", ("stdio", "call"),
           convert_taco, hub_id="likaixin/TACO-verified"),
    Source("apps", "hub", "APPS: 10k problems, introductory to competition", ("stdio", "call"),
           convert_taco, hub_id="codeparrot/apps"),
    Source("code-contests", "hub", "DeepMind CodeContests: Python 3 solutions, public+private+generated tests",
           ("stdio",), convert_code_contests, hub_id="deepmind/code_contests"),
    Source("lcb", "hub", "LiveCodeBench code generation (no solutions); start/end date window",
           ("stdio", "call"), convert_lcb, hub_id="livecodebench/code_generation_lite", split="train",
           check_options=check_lcb_options),
    Source("primeintellect", "hub", "PrimeIntellect verifiable coding problems (python rows)",
           ("stdio", "call"), convert_primeintellect, hub_id="PrimeIntellect/verifiable-coding-problems"),
    Source("deepcoder", "hub", "DeepCoder-Preview; config lcbv5/primeintellect/taco/codeforces",
           ("stdio", "call"), convert_deepcoder, hub_id="agentica-org/DeepCoder-Preview-Dataset", config="taco"),
    Source("codeforces", "hub", "open-r1 Codeforces: official tests, checkers, ratings", ("stdio",),
           convert_codeforces, hub_id="open-r1/codeforces", config="default"),
    Source("leetcodedataset", "local", "LeetCodeDataset v0.2.0 train (1890)", ("assert",),
           convert_leetcodedataset, default_file="LeetCodeDataset-v0.2.0-train.jsonl.gz"),
    Source("mbpp", "local", "MBPP (974), bare asserts", ("assert",), convert_mbpp, default_file="mbpp.jsonl.gz"),
    Source("humaneval", "local", "HumanEval (164), check(candidate)", ("assert",), convert_humaneval,
           default_file="HumanEval.jsonl.gz"),
    Source("humaneval-x", "local", "HumanEval-X Python (164)", ("assert",), convert_humaneval_x,
           default_file="humaneval-x-python.jsonl.gz"),
    Source("codecontests-subset", "local", "300 Codeforces problems from CodeContests", ("stdio",),
           convert_codecontests_subset, default_file="codecontests-subset300.jsonl.gz"),
    Source("canonical", "local", "a canonical JSONL/Parquet file (bare path)", ("stdio", "call", "assert"),
           convert_canonical, keep_row_source=True),
    Source("demo", "builtin", "synthetic demo corpus with planted defects (sources demo-contest, demo-interview, demo-basics)",
           ("stdio", "call", "assert"), convert_canonical, keep_row_source=True, rows=_demo_rows),
]  # fmt: skip
SOURCES: dict[str, Source] = {s.name: s for s in _ALL}


def get_source(name: str) -> Source:
    """The registered source called `name`, or a UserError listing the known names."""
    try:
        return SOURCES[name]
    except KeyError:
        raise UserError(
            f"unknown source {name!r}; known sources: {', '.join(SOURCES)} (or pass a path to a canonical JSONL/Parquet file)"
        ) from None


def _looks_like_path(arg: str) -> bool:
    return "/" in arg or os.sep in arg or arg.endswith(DATA_SUFFIXES) or arg.endswith(".gz")


def parse_source_arg(arg: str) -> tuple[Source, str | None]:
    """`name`, `name:/path` or a bare canonical path -> (Source, path or None)."""
    arg = arg.strip()
    if arg in SOURCES:
        return SOURCES[arg], None
    name, sep, path = arg.partition(":")
    if sep and not _looks_like_path(name):
        source = get_source(name)
        if not path:
            raise UserError(f"{name}: empty path after ':'; pass --source {name}:/path/to/data")
        if not Path(path).exists():
            raise UserError(
                f"{name}: {path} does not exist; pass --source {name}:/path/to/existing/file-or-dir"
            )
        return source, path
    if _looks_like_path(arg) or Path(arg).exists():
        if not Path(arg).exists():
            raise UserError(
                f"{arg}: no such file; pass a canonical JSONL/Parquet path or a source name ({', '.join(SOURCES)})"
            )
        return SOURCES["canonical"], arg
    return get_source(arg), None


def source_options(source: Source) -> list[str]:
    """Option names `iter_source` accepts for `source` (besides path and limit)."""
    conv = [p for p in inspect.signature(source.convert).parameters if p not in ("row", "index")]
    loader = ["split", "config"] if source.kind == "hub" else []
    if source.name == "lcb":
        loader = ["version_tag"]
    return sorted(set(loader) | set(conv))


def _split_options(
    source: Source, options: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    params = inspect.signature(source.convert).parameters
    loader = {k: v for k, v in options.items() if k in _LOADER_OPTIONS}
    conv = {k: v for k, v in options.items() if k in params and k not in ("row", "index")}
    unknown = sorted(set(options) - set(loader) - set(conv))
    if unknown:
        accepted = sorted(set(_LOADER_OPTIONS) | (set(params) - {"row", "index"}))
        raise UserError(
            f"{source.name}: unknown option(s) {', '.join(unknown)}; accepted: {', '.join(accepted)}"
        )
    if "config" in params and "config" not in conv:
        conv["config"] = loader.get("config") or source.config or source.name
    return loader, conv


def _raw_rows(source: Source, path: str | Path | None, loader: dict[str, Any]) -> Iterator[Any]:
    if source.rows is not None:
        return source.rows(**loader)
    if path is not None and source.name == "canonical":
        if not Path(path).exists():
            raise UserError(
                f"{path}: no such file; pass a canonical JSONL/Parquet file or directory"
            )
        return iter_canonical_file(path)
    if path is not None:
        split = loader.get("split", source.split) if source.kind == "hub" else None
        return iter_local_rows(path, split=split)
    if source.kind == "local":
        return iter_local_rows(default_path(source))
    split = loader.get("split", source.split)
    if source.name == "lcb":
        files = _lcb_files(loader.get("version_tag", "release_v6"))
        return iter_hub_rows(source.name, source.hub_id or "", split="train", data_files=files)
    return iter_hub_rows(
        source.name, source.hub_id or "", split=split, config=loader.get("config", source.config)
    )


def _convert_all(
    source: Source, rows: Iterator[Any], conv: dict[str, Any], limit: int | None
) -> Iterator[dict[str, Any] | RecordError]:
    emitted = 0
    for index, row in enumerate(rows):
        if limit is not None and emitted >= limit:
            return
        out: dict[str, Any] | RecordError | None
        if isinstance(row, RecordError):
            out = row
        elif not isinstance(row, dict):
            out = RecordError("<row>", f"expected an object, got {type(row).__name__}")
        else:
            try:
                out = source.convert(row, index, **conv)
            except RecordError as e:
                out = e
            except (KeyError, TypeError, ValueError, AttributeError) as e:
                out = RecordError("<row>", f"cannot convert row {index}: {type(e).__name__}: {e}")
        if out is None:
            continue
        if isinstance(out, RecordError):
            out.partial.setdefault("id", str(index))
            out.partial.setdefault("source", source.name)
        elif not (source.keep_row_source and out.get("source")):
            out["source"] = source.name
        emitted += 1
        yield out


def iter_source(
    source: Source | str, path: str | Path | None = None, limit: int | None = None, **options: Any
) -> Iterator[dict[str, Any] | RecordError]:
    """Canonical records (or RecordErrors for bad rows) of a source, streamed.

    Opening the source happens now, so a missing file or an unreachable hub raises UserError at
    the call, not at the first `next()`. Options: `split`, `config`, `version_tag` (hub), plus
    the converter's own (lcb `start`/`end`, primeintellect `language`, code-contests
    `include_generated`). `limit` caps the items yielded, records and RecordErrors together.
    """
    if isinstance(source, str):
        source = get_source(source)
    loader, conv = _split_options(source, options)
    if source.check_options is not None:
        source.check_options(
            **{
                k: v
                for k, v in conv.items()
                if k in inspect.signature(source.check_options).parameters
            }
        )
    rows = _raw_rows(source, path, loader)
    return _convert_all(source, rows, conv, limit)
