"""Problem sources: a registry of loaders that turn raw rows into canonical records.

`--source` takes a registry name (`mbpp`), `name:/path` (a local copy of a hub dataset or a
local file in another place), or a bare path to a canonical JSONL/Parquet file.

Local sources with no path look for their file in, in order: `$CODEMIX_DATA`, `../shared/data`
relative to the current directory, and `../shared/data` beside the repository checkout.
Hub sources with no path stream from the Hugging Face hub through data files, never a loading
script (`hub.py`); an unreachable hub is a UserError that says how to point the source at a
local copy. Before any row is converted, a hub source's columns are checked against what its
converter reads (`columns.py`), and a source that holds no rows at all is a UserError.

Each converter is a pure function `convert(row, index, **options) -> dict | None` that raises
RecordError for a row it cannot convert; None means "not selected" (another language, outside
a date window) and the row is skipped.
"""

from __future__ import annotations

import inspect
import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curation.schema import RecordError
from curation.sources.code_contests import CODE_CONTESTS_COLUMNS, convert_code_contests
from curation.sources.codeforces import CODEFORCES_COLUMNS, convert_codeforces
from curation.sources.columns import Columns
from curation.sources.deepcoder import DEEPCODER_COLUMNS, DEEPCODER_SPLITS, convert_deepcoder
from curation.sources.files import DATA_SUFFIXES, Check, find_data_files, read_rows
from curation.sources.hub import HubFiles, ReleaseFiles, iter_hub_rows
from curation.sources.lcb import LCB_COLUMNS, LCB_FILES, check_lcb_options, convert_lcb
from curation.sources.local import (
    convert_canonical,
    convert_codecontests_subset,
    convert_humaneval,
    convert_humaneval_x,
    convert_leetcodedataset,
    convert_mbpp,
)
from curation.sources.paths import data_dirs, default_path
from curation.sources.primeintellect import PRIMEINTELLECT_COLUMNS, convert_primeintellect
from curation.sources.taco import APPS_COLUMNS, TACO_COLUMNS, convert_taco
from filters.contracts import UserError

__all__ = [
    "Converter",
    "Source",
    "SOURCES",
    "get_source",
    "parse_source_arg",
    "iter_source",
    "source_options",
    "data_dirs",
    "default_path",
    "how_read",
    "how_read_locally",
]

Converter = Callable[..., "dict[str, Any] | None"]


@dataclass(frozen=True)
class Source:
    """One registered source: where its rows come from and how they become canonical records.

    Hub sources: `hub_id`; `files` when the hub copy is read through data files by pattern,
    `release` when a loader option names the files (LiveCodeBench's `version_tag`), otherwise
    by name and config; `splits` (the first is the default) or, per config, `configs`;
    `columns`, what the converter reads, checked before any row is. `check_options` sees the
    converter's options before any row is read.
    """

    name: str
    kind: str  # "hub", "local" or "builtin"
    description: str
    test_types: tuple[str, ...]
    convert: Converter
    hub_id: str | None = None
    splits: tuple[str, ...] = ("train",)
    config: str | None = None
    configs: dict[str, tuple[str, ...]] | None = None
    files: HubFiles | None = None
    release: ReleaseFiles | None = None
    columns: Columns | None = None
    default_file: str | None = None
    check_options: Callable[..., None] | None = None
    keep_row_source: bool = False
    rows: Callable[..., Iterator[Any]] | None = field(default=None, repr=False)

    def splits_of(self, config: str | None) -> tuple[str, ...]:
        """The splits of `config` (or of the dataset); UserError for an unknown config."""
        if self.configs is None:
            return self.splits
        config = config or self.config
        if config not in self.configs:
            raise UserError(
                f"{self.name}: unknown config {config!r}; configs: {', '.join(self.configs)}"
            )
        return self.configs[config]


def _demo_rows(**_: Any) -> Iterator[Any]:
    from curation.demo import demo_records

    return demo_records()


_TACO_FILES = HubFiles(
    "parquet",
    {
        "train": ("ALL/train-*.parquet", "train/*.arrow"),
        "test": ("ALL/test-*.parquet", "test/*.arrow"),
    },
)
_ALL: list[Source] = [
    Source("taco", "hub", "TACO: 26k competitive problems, stdio and call tests", ("stdio", "call"),
           convert_taco, hub_id="BAAI/TACO", splits=("train", "test"), files=_TACO_FILES,
           columns=TACO_COLUMNS),
    Source("taco-verified", "hub", "TACO with failing solutions removed", ("stdio", "call"),
           convert_taco, hub_id="likaixin/TACO-verified",
           files=HubFiles("json-array", {"train": ("taco_verified.json",)}), columns=TACO_COLUMNS),
    Source("apps", "hub", "APPS: 10k problems, introductory to competition", ("stdio", "call"),
           convert_taco, hub_id="codeparrot/apps", splits=("train", "test"),
           files=HubFiles("json", {"train": ("train.jsonl",), "test": ("test.jsonl",)}),
           columns=APPS_COLUMNS),
    Source("code-contests", "hub", "DeepMind CodeContests: Python 3 solutions, public+private+generated tests",
           ("stdio",), convert_code_contests, hub_id="deepmind/code_contests",
           splits=("train", "valid", "test"), columns=CODE_CONTESTS_COLUMNS),
    Source("lcb", "hub", "LiveCodeBench code generation (no solutions); start/end date window",
           ("stdio", "call"), convert_lcb, hub_id="livecodebench/code_generation_lite", splits=("test",),
           release=LCB_FILES, check_options=check_lcb_options, columns=LCB_COLUMNS),
    Source("primeintellect", "hub", "PrimeIntellect verifiable coding problems (python rows)",
           ("stdio", "call"), convert_primeintellect, hub_id="PrimeIntellect/verifiable-coding-problems",
           columns=PRIMEINTELLECT_COLUMNS),
    Source("deepcoder", "hub", "DeepCoder-Preview; config lcbv5/primeintellect/taco/codeforces",
           ("stdio", "call"), convert_deepcoder, hub_id="agentica-org/DeepCoder-Preview-Dataset", config="taco",
           configs=DEEPCODER_SPLITS, columns=DEEPCODER_COLUMNS),
    Source("codeforces", "hub", "open-r1 Codeforces: official tests, checkers, ratings", ("stdio",),
           convert_codeforces, hub_id="open-r1/codeforces", config="default", splits=("train", "test"),
           columns=CODEFORCES_COLUMNS),
    Source("leetcodedataset", "local", "LeetCodeDataset v0.2.0 train (1890)", ("assert",),
           convert_leetcodedataset, default_file="LeetCodeDataset-v0.2.0-train.jsonl.gz"),
    Source("mbpp", "local", "MBPP (974), bare asserts", ("assert",), convert_mbpp, default_file="mbpp.jsonl.gz"),
    Source("humaneval", "local", "HumanEval (164), check(candidate)", ("assert",), convert_humaneval,
           default_file="HumanEval.jsonl.gz"),
    Source("humaneval-x", "local", "HumanEval-X Python (164)", ("assert",), convert_humaneval_x,
           default_file="humaneval-x-python.jsonl.gz"),
    Source("codecontests-subset", "local", "300 Codeforces problems from CodeContests", ("stdio",),
           convert_codecontests_subset, default_file="codecontests-subset300.jsonl.gz"),
    Source("canonical", "local", "a canonical JSONL/Parquet file or a directory of them (bare path)",
           ("stdio", "call", "assert"), convert_canonical, keep_row_source=True),
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
    from curation.storage import Loc, is_uri

    arg = arg.strip()
    if arg in SOURCES:
        return SOURCES[arg], None
    if is_uri(arg):  # a canonical file or directory on object storage
        if not Loc.of(arg).exists():
            raise UserError(f"{arg}: no such file or directory in its storage")
        return SOURCES["canonical"], arg
    name, sep, path = arg.partition(":")
    if sep and not _looks_like_path(name):
        source = get_source(name)
        if not path:
            raise UserError(f"{name}: empty path after ':'; pass --source {name}:/path/to/data")
        if is_uri(path):
            if not Loc.of(path).exists():
                raise UserError(f"{name}: {path} does not exist in its storage")
            return source, path
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
    return sorted(set(_loader_options(source)) | set(conv))


def _loader_options(source: Source) -> list[str]:
    """The options that choose which rows are read (not passed to the converter)."""
    if source.kind != "hub":
        return []
    loader = [source.release.option] if source.release is not None else ["split"]
    if source.config is not None:
        loader.append("config")
    return loader


def how_read(source: Source) -> str:
    """How a source's rows are read, in words (for `codemix sources` and the docs)."""
    if source.kind == "builtin":
        return "built in (curation.demo)"
    if source.kind == "local":
        if source.default_file:
            return (
                f"local file {source.default_file} (see data_dirs), or --source {source.name}:PATH"
            )
        return "a file or a directory of .parquet, .arrow, .jsonl(.gz), .json(.gz) files"
    if source.files is not None:
        return f"{source.hub_id}, data files (no script): {source.files.describe()}"
    if source.release is not None:
        return f"{source.hub_id}, data files (no script): {source.release.describe()}"
    return f"{source.hub_id}, by name and config (no script): the Parquet files its dataset card declares"


def how_read_locally(source: Source) -> str:
    """What `--source NAME:PATH` reads in a folder, in words."""
    if source.files is not None:
        first = next(iter(source.files.splits))
        layouts = " else ".join(source.files.patterns(first))
        return f"one file, or a folder holding the hub's files ({layouts} for {first})"
    if source.release is not None:
        release = source.release
        return f"one file, or a folder holding the release's {release.pattern} (up to {release.option})"
    sub = " (the config's subfolder if present)" if source.configs or source.config else ""
    return f"one file, or a folder of data files{sub}, those named after the split"


def _split_options(
    source: Source, options: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    params = inspect.signature(source.convert).parameters
    accepted = set(source_options(source))
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise UserError(
            f"{source.name}: unknown option(s) {', '.join(unknown)}; accepted: {', '.join(sorted(accepted)) or 'none'}"
        )
    loader_names = _loader_options(source)
    loader = {k: v for k, v in options.items() if k in loader_names}
    conv = {k: v for k, v in options.items() if k in params and k not in ("row", "index")}
    if "config" in params and "config" not in conv:
        conv["config"] = loader.get("config") or source.config or source.name
    return loader, conv


def _config_in_path(source: Source, path: str | Path) -> str | None:
    """The config a local path names (`.../codeforces/test-0.parquet`, `rllm_test_codeforces.json`)."""
    if not source.configs:
        return None
    parts = [p.lower() for p in Path(path).parts]
    for config in sorted(source.configs, key=len, reverse=True):
        if any(
            p == config or p.startswith(config + ".") or config in p.split(".")[0].split("_")
            for p in parts
        ):
            return config
    return None


def _column_check(source: Source) -> Check | None:
    """`check(label, found)` for a hub source's files, naming the source in the error."""
    columns = source.columns
    if columns is None:
        return None

    def check(label: str, found: dict[str, str]) -> None:
        columns.check(
            label if label.startswith(f"{source.name}:") else f"{source.name}: {label}", found
        )

    return check


def _hub_split(source: Source, loader: dict[str, Any]) -> tuple[str | None, str]:
    """(config, split) for reading `source` from the hub; UserError for an unknown one."""
    config = loader.get("config") or source.config
    splits = source.splits_of(config)
    split = loader.get("split") or splits[0]
    if split not in splits:
        where = f"{source.hub_id}" + (f" config {config}" if source.configs else "")
        raise UserError(
            f"{source.name}: {where} has no split {split!r}; splits: {', '.join(splits)}"
        )
    return config, split


def _raw_rows(
    source: Source, path: str | Path | None, loader: dict[str, Any]
) -> tuple[Iterator[Any], str]:
    """The raw rows of a source and what to say when there are none."""
    if source.rows is not None:
        return source.rows(**loader), f"{source.name}: the built-in rows"
    check = _column_check(source)
    if path is not None:
        config = loader.get("config") or source.config
        split = loader.get("split")
        if source.kind == "hub" and split is None:
            split = source.splits_of(config)[0]
        patterns = source.files.patterns(split) if source.files is not None else ()
        files = find_data_files(path, split, config, patterns)
        release = source.release
        if release is not None and Path(path).is_dir():  # a snapshot: the release's files only
            named = release.names(loader.get(release.option) or release.default)
            files = [f for f in (Path(path) / n for n in named) if f.is_file()] or files
        names = ", ".join(f.name for f in files[:5]) + (" ..." if len(files) > 5 else "")
        return read_rows(files, check), f"{path}: no rows in its data files ({names})"
    if source.kind == "local":
        f = default_path(source)
        return read_rows([f]), f"{f}: no rows"
    config, split = _hub_split(source, loader)
    hub_id = source.hub_id or ""
    empty = f"{source.name}: {hub_id} split {split} holds no rows"
    if source.release is not None:
        urls = source.release.urls(hub_id, loader.get(source.release.option))
        return iter_hub_rows(source.name, hub_id, split=split, urls=urls, check=check), empty
    rows = iter_hub_rows(
        source.name, hub_id, split=split, config=config, files=source.files, check=check
    )
    return rows, empty


def _started(rows: Iterator[Any], empty: str) -> Iterator[Any]:
    """`rows` with its first row already read (files opened, columns checked); UserError if none."""
    try:
        first = next(rows)
    except StopIteration:
        raise UserError(empty) from None
    return itertools.chain([first], rows)


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
            out.where.setdefault("row", index)  # its problem_id, when it names no id: SOURCE#row-N
            if not (source.keep_row_source and out.partial.get("source")):
                out.partial["source"] = source.name
        elif not (source.keep_row_source and out.get("source")):
            out["source"] = source.name
        emitted += 1
        yield out


def iter_source(
    source: Source | str, path: str | Path | None = None, limit: int | None = None, **options: Any
) -> Iterator[dict[str, Any] | RecordError]:
    """Canonical records (or RecordErrors for bad rows) of a source, streamed.

    Opening the source happens now: the first row is read, so a missing file, a directory
    without data files, a source with no rows, a hub dataset whose columns changed, or an
    unreachable hub raises UserError at the call, not at the first `next()`. Options: `split`,
    `config` (deepcoder, codeforces), `version_tag` (lcb), plus the converter's own (lcb
    `start`/`end`, primeintellect `language`, code-contests `include_generated`). `limit` caps
    the items yielded, records and RecordErrors together.
    """
    if isinstance(source, str):
        source = get_source(source)
    if path is not None and "config" not in options:
        named = _config_in_path(source, path)
        options = {**options, "config": named} if named else options
    loader, conv = _split_options(source, options)
    if source.check_options is not None:
        source.check_options(
            **{
                k: v
                for k, v in conv.items()
                if k in inspect.signature(source.check_options).parameters
            }
        )
    rows, empty = _raw_rows(source, path, loader)
    return _convert_all(source, _started(rows, empty), conv, limit)
