"""Exports of a finished build to the formats trainers read: jsonl, parquet, hf, verl, trl.

Every format writes one file (or dataset) per split into the output directory, all with the same
columns and types. Splits are deterministic: `test=0.05` puts a problem in `test` when a hash of
its `problem_id` says so, so the same problem lands in the same split on every export. Split
names are the values of `--split-by`'s column with characters other than letters, digits and `_`
replaced by `_` (Hugging Face split names allow no others).

File formats (jsonl, parquet, verl) also get a `README.md` dataset card naming the splits and
every column's type, so `datasets.load_dataset(OUT)` loads them with the build's types. JSON has
no types: `load_dataset("json", data_files=...)` infers them from the first file, and a column
that is null in every row of that file (`entry_point` in a `stdio` split) fails the others.
Every format carries `source` and `difficulty_bucket` as top-level columns (what a mixer groups by);
verl and trl also `difficulty`, `difficulty_std` and `never_solved` (a sampler's prior).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from glob import escape as glob_escape
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from curation.outlock import holder_of, refuse_if_locked
from curation.storage import Loc, is_uri, local_build
from curation.store import (
    EXPORT_MARKER,
    MANIFEST,
    iter_shard_batches,
    read_export_marker,
    require_build,
    sha256_file,
)
from filters.contracts import UserError
from filters.judging.ground_truth import to_ground_truth

__all__ = [
    "FORMATS",
    "VERL_SCHEMA",
    "TRL_SCHEMA",
    "parse_split",
    "split_of",
    "prompt_text",
    "verl_row",
    "trl_row",
    "split_name",
    "export",
    "check_out",
    "LANGUAGES",
    "never_solved",
]

FORMATS = ("jsonl", "parquet", "hf", "verl", "trl")


def parse_split(spec: str | None) -> tuple[str, float] | None:
    """`test=0.05` -> ("test", 0.05); None -> None."""
    if not spec:
        return None
    name, _, frac = spec.partition("=")
    try:
        f = float(frac)
    except ValueError:
        raise UserError(f"--split must look like test=0.05, got {spec!r}") from None
    if not name or not 0 < f < 1 or name == "train":
        raise UserError(
            f"--split must be NAME=FRACTION with 0 < FRACTION < 1 and NAME not 'train', got {spec!r}"
        )
    return name, f


def split_of(problem_id: str, split: tuple[str, float] | None) -> str:
    """Deterministic split assignment from a hash of the problem id."""
    if split is None:
        return "train"
    h = int.from_bytes(hashlib.sha256(problem_id.encode()).digest()[:8], "big") / 2**64
    return split[0] if h < split[1] else "train"


#: the languages an export can ask completions in: (name in prompts, fence tag)
LANGUAGES = {"python": ("Python", "python"), "cpp": ("C++", "cpp")}


def prompt_text(row: dict[str, Any], language: str = "python") -> str:
    """The user prompt for a problem: statement, starter code and how to answer, in `language`
    (C++ only for stdio problems: its starter code, Python's, is left out)."""
    name, tag = LANGUAGES[language]
    parts = [row["statement"].strip()]
    starter = (row.get("starter_code") or "").strip()
    if row["test_type"] == "stdio":
        how = "Read the input from standard input and write the answer to standard output."
        if language != "python":
            how = f"Write a complete {name} program. " + how
    else:
        how = f"Implement `{row.get('entry_point')}` in {name}."
    if starter and starter not in parts[0] and language == "python":
        parts.append(f"Start from this code:\n```python\n{starter}\n```")
    parts.append(how + f" Put your complete solution in one ```{tag} code block.")
    return "\n\n".join(parts)


def never_solved(row: dict[str, Any]) -> bool | None:
    """Whether the build ranked the problem from rollouts (`pass_rate`) and no model passed it:
    its difficulty is then a bound, which a sampler's prior reads (`mixer.problems.prior`);
    None when no model attempted it."""
    rates = row.get("pass_rate")
    if not rates:
        return None
    values = rates.values() if isinstance(rates, dict) else (v for _, v in rates)
    return all(float(v) == 0.0 for v in values)


def _meta(row: dict[str, Any], split: str, index: int) -> dict[str, Any]:
    return {
        "split": split,
        "index": index,
        "problem_id": row["problem_id"],
        "test_type": row["test_type"],
        "difficulty": row.get("difficulty"),
        "difficulty_std": row.get("difficulty_std"),
        "difficulty_bucket": row.get("difficulty_bucket"),
    }


def verl_row(
    row: dict[str, Any], split: str, index: int, language: str | None = None
) -> dict[str, Any]:
    """One row of the parquet verl's RL trainer reads; `source`, `difficulty`, `difficulty_std`
    and `difficulty_bucket` are also top-level columns, which verl passes through to a sampler.
    `language`: the language the prompt asks for (None: Python, the record's own)."""
    return {
        "data_source": row["source"],
        "prompt": [{"role": "user", "content": prompt_text(row, language or "python")}],
        "ability": "code",
        "reward_model": {"style": "rule", "ground_truth": to_ground_truth(row, language)},
        "extra_info": _meta(row, split, index),
        "source": row["source"],
        "difficulty": row.get("difficulty"),
        "difficulty_std": row.get("difficulty_std"),
        "difficulty_bucket": row.get("difficulty_bucket"),
        "never_solved": never_solved(row),
    }


def trl_row(
    row: dict[str, Any], split: str, index: int, language: str | None = None
) -> dict[str, Any]:
    """One row for TRL: a conversational `prompt` plus the columns its reward functions receive."""
    return {
        "prompt": [{"role": "user", "content": prompt_text(row, language or "python")}],
        "problem_id": row["problem_id"],
        "source": row["source"],
        "ground_truth": to_ground_truth(row, language),
        "difficulty": row.get("difficulty"),
        "difficulty_std": row.get("difficulty_std"),
        "difficulty_bucket": row.get("difficulty_bucket"),
        "never_solved": never_solved(row),
    }


_PROMPT = pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))
#: Fixed schemas, so every chunk of a streamed export has the same types (a chunk whose
#: difficulties are all None must not decide that the column is of null type).
VERL_SCHEMA = pa.schema(
    [
        ("data_source", pa.string()),
        ("prompt", _PROMPT),
        ("ability", pa.string()),
        ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
        (
            "extra_info",
            pa.struct(
                [
                    ("split", pa.string()),
                    ("index", pa.int64()),
                    ("problem_id", pa.string()),
                    ("test_type", pa.string()),
                    ("difficulty", pa.float64()),
                    ("difficulty_std", pa.float64()),
                    ("difficulty_bucket", pa.int64()),
                ]
            ),
        ),
        ("source", pa.string()),
        ("difficulty", pa.float64()),
        ("difficulty_std", pa.float64()),
        ("difficulty_bucket", pa.int64()),
        ("never_solved", pa.bool_()),
    ]
)
TRL_SCHEMA = pa.schema(
    [
        ("prompt", _PROMPT),
        ("problem_id", pa.string()),
        ("source", pa.string()),
        ("ground_truth", pa.string()),
        ("difficulty", pa.float64()),
        ("difficulty_std", pa.float64()),
        ("difficulty_bucket", pa.int64()),
        ("never_solved", pa.bool_()),
    ]
)


def split_name(value: Any) -> str:
    """A column value as a split name (and file stem): `demo-contest` -> `demo_contest`, None -> `none`."""
    return re.sub(r"\W", "_", "none" if value is None else str(value), flags=re.ASCII) or "_"


def _split_names(
    batch: pa.Table, split: tuple[str, float] | None, split_by: str | None
) -> list[str]:
    if split_by:
        if split_by not in batch.column_names:
            raise UserError(
                f"--split-by {split_by!r}: no such column; columns: {', '.join(batch.column_names)}"
            )
        return [split_name(v) for v in batch.column(split_by).to_pylist()]
    return [split_of(pid, split) for pid in batch.column("problem_id").to_pylist()]


def _check_split_values(batch: pa.Table, split_by: str, seen: dict[str, str]) -> None:
    """Two values that give the same split name would share a file: refuse."""
    for v in set(map(str, batch.column(split_by).to_pylist())):
        name = split_name(v)
        if seen.setdefault(name, v) != v:
            raise UserError(
                f"--split-by {split_by}: values {seen[name]!r} and {v!r} both become split {name!r}"
            )


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _write_card(
    directory: Path, fmt: str, paths: dict[str, Path], schema: pa.Schema, counts: dict[str, int]
) -> None:
    """`README.md` with the splits and every column's type, read by `datasets.load_dataset(directory)`."""
    import datasets
    from huggingface_hub import DatasetCardData

    card = DatasetCardData()
    info = datasets.DatasetInfo(features=datasets.Features.from_arrow_schema(schema))
    datasets.info.DatasetInfosDict({"default": info}).to_dataset_card_data(card)
    data = card.to_dict()
    data["configs"] = [
        {
            "config_name": "default",
            "data_files": [{"split": n, "path": p.name} for n, p in sorted(paths.items())],
        }
    ]
    yaml = DatasetCardData(**data).to_yaml()
    text = (
        f"---\n{yaml}\n---\n\nProblems exported by codemix as {fmt}: "
        + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        + ".\n"
        "Load them with `datasets.load_dataset(THIS_DIRECTORY)`: the splits and column types above apply.\n"
    )
    (directory / "README.md").write_text(text, encoding="utf-8")


class _SplitFiles:
    """One output file per split, written chunk by chunk (memory: one shard batch at a time)."""

    def __init__(self, directory: Path, fmt: str, language: str | None = None) -> None:
        self.dir, self.fmt, self.language = directory, fmt, language
        self.count: dict[str, int] = {}
        self.paths: dict[str, Path] = {}
        self.schema: pa.Schema | None = None
        self._open: dict[str, Any] = {}

    def write(self, name: str, part: pa.Table) -> None:
        """Append the rows of `part` (shard rows of one split) in this export's format."""
        start = self.count.get(name, 0)
        self.count[name] = start + part.num_rows
        if self.schema is None:
            self.schema = (
                VERL_SCHEMA
                if self.fmt == "verl"
                else TRL_SCHEMA
                if self.fmt == "trl"
                else part.schema
            )
        if self.fmt in ("parquet", "hf"):  # the shard rows as they are (hf: read back by datasets)
            self._writer(name, part.schema).write_table(part)
            return
        rows = part.to_pylist()
        if self.fmt == "jsonl":
            f = self._jsonl(name)
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
            return
        make, schema = (verl_row, VERL_SCHEMA) if self.fmt == "verl" else (trl_row, TRL_SCHEMA)
        table = pa.Table.from_pylist(
            [make(r, name, start + i, self.language) for i, r in enumerate(rows)], schema=schema
        )
        self._writer(name, schema).write_table(table)

    def _path(self, name: str, suffix: str) -> Path:
        if name not in self.paths:
            self.paths[name] = self.dir / f"{_safe(name)}{suffix}"
        return self.paths[name]

    def _jsonl(self, name: str) -> Any:
        if name not in self._open:
            self._open[name] = open(self._path(name, ".jsonl"), "w", encoding="utf-8")
        return self._open[name]

    def _writer(self, name: str, schema: pa.Schema) -> pq.ParquetWriter:
        if name not in self._open:
            self._open[name] = pq.ParquetWriter(
                self._path(name, ".parquet"), schema, compression="zstd"
            )
        return self._open[name]

    def close(self) -> None:
        for f in self._open.values():
            f.close()
        self._open.clear()


def _files_under(directory: Path) -> list[str]:
    return sorted(
        p.relative_to(directory).as_posix()
        for p in directory.rglob("*")
        if p.is_file() or p.is_symlink()
    )


def check_out(build_dir: Path, out: Path, fmt: str, force: bool = False, build_name: str | None = None) -> None:
    """A UserError unless `out` may receive this export. It may when it is new or empty, or holds an
    earlier export of the same build in the same format (replaced), or, with `force`, another
    export. Never: files an export did not write, the build itself (or a directory inside it or
    holding it), the current directory or one that holds it."""
    build, target, cwd = build_dir.resolve(), out.resolve(), Path.cwd().resolve()
    if target == cwd or target in cwd.parents:
        raise UserError(
            f"--out {out} is the current directory or holds it; export into a directory of its own, e.g. --out out/{fmt}"
        )
    if target == build or build in target.parents or target in build.parents:
        where = "is" if target == build else "is inside" if build in target.parents else "holds"
        raise UserError(
            f"--out {out} {where} the build {build_dir}; export into a directory of its own, e.g. --out out/{fmt}"
        )
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return
    marker = read_export_marker(out) if out.is_dir() else None
    if marker is None:
        raise UserError(
            f"--out {out} is not empty and holds no codemix export; codemix never replaces what it did not write: "
            "choose a new or empty --out directory"
        )
    written = {EXPORT_MARKER, *marker["files"]}
    extra = [f for f in _files_under(out) if f not in written]
    if extra:
        shown = ", ".join(extra[:3]) + (f" and {len(extra) - 3} more" if len(extra) > 3 else "")
        raise UserError(
            f"--out {out} holds an earlier export and files it did not write ({shown}); "
            "move them away or choose another --out directory"
        )
    same = marker.get("format") == fmt and marker.get("build") == (build_name or str(build))
    if not same and not force:
        raise UserError(
            f"--out {out} holds a {marker.get('format')} export of {marker.get('build')}; "
            f"pass --force to replace it with this {fmt} export, or choose another --out directory"
        )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _scratch(out: Path, kind: str) -> Path:
    """A directory beside `out` for this process: `.NAME.partial-PID` (the export being written)
    or `.NAME.old-PID` (the export it replaces, until the new one is in place)."""
    return out.parent / f".{out.name}.{kind}-{os.getpid()}"


def _remove_stale_scratch(out: Path) -> None:
    """Scratch directories of exports to `out` whose process is gone (killed mid-export)."""
    for p in out.parent.glob(f".{glob_escape(out.name)}.*-*"):
        kind, _, pid = p.name[len(out.name) + 2 :].rpartition("-")
        if kind in ("partial", "old") and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)


def _put_in_place(new: Path, out: Path) -> None:
    """`new` becomes `out`. An earlier export at `out` is moved aside first and removed only once
    `new` is in place, so a crash at any moment leaves one of the two whole."""
    old = None
    if out.exists():
        old = _scratch(out, "old")
        out.rename(old)
    new.rename(out)
    if old is not None:
        shutil.rmtree(old)


def export(
    build_dir: str | Path,
    fmt: str,
    out: str | Path,
    split: str | None = None,
    split_by: str | None = None,
    language: str | None = None,
    force: bool = False,
) -> dict[str, int]:
    """Write the build's problems in `fmt` under `out`; returns rows per split.

    `language` ("python", "cpp"; verl and trl formats): the language the prompts ask completions
    in, which the ground truth records for the rewards. A C++ export keeps stdio problems only
    (the others are graded by calling a Python function).

    `out` must be new, empty, or an earlier export of this build in this format (or, with
    `force`, any earlier export): `check_out` says what is refused. Streams: one shard batch is in
    memory at a time. Everything is written under a temporary directory beside `out`, which
    replaces `out` only once complete, so a failed or killed export leaves a previous one whole.
    The export's last file, `EXPORT_MARKER`, lists what it wrote.
    """
    if is_uri(os.fspath(build_dir)):  # a build on object storage: read from a local copy
        from curation.objectlock import object_lock_holder

        loc = Loc.of(build_dir)
        held = object_lock_holder(loc)
        if held is not None:
            raise UserError(f"{loc} is being built by another process ({held}); export it once that build has finished")
        with local_build(loc.uri) as copy:
            return _export(copy, fmt, Path(out), split, split_by, language, force, loc.uri)
    build_dir = Path(build_dir)
    return _export(build_dir, fmt, Path(out), split, split_by, language, force, str(build_dir.resolve()))


def _export(
    build_dir: Path,
    fmt: str,
    out: Path,
    split: str | None,
    split_by: str | None,
    language: str | None,
    force: bool,
    build_name: str,
) -> dict[str, int]:
    """`export`, of a local build directory; `build_name`: the build as the export's marker names
    it (its resolved path, or its URI on object storage)."""
    holder = holder_of(build_dir)
    if holder is not None:
        raise UserError(
            f"{build_dir} is being built by another process ({holder}); export it once that build has finished"
        )
    refuse_if_locked(out, "an export there is refused")
    manifest = require_build(build_dir)
    if fmt not in FORMATS:
        raise UserError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    if split and split_by:
        raise UserError("pass either --split or --split-by, not both")
    if language is not None and language not in LANGUAGES:
        raise UserError(f"unknown language {language!r}; languages: {', '.join(LANGUAGES)}")
    if language not in (None, "python") and fmt not in ("verl", "trl"):
        raise UserError("--language is for prompts: use it with --format verl or trl")
    sp = parse_split(split)
    check_out(build_dir, out, fmt, force, build_name)
    try:  # the export is written beside `out` first: its directory must take new files
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"--out {out}: cannot create its directory ({e.strerror}); choose a --out you can write to") from None
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise UserError(f"--out {out}: {out.parent} is not writable; choose a --out you can write to")
    tmp = _scratch(out, "partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        tmp.mkdir(parents=True)
    except OSError as e:
        raise UserError(
            f"--out {out}: cannot write in {out.parent} ({e.strerror}); choose a --out you can write to"
        ) from None
    try:
        datasets_formats = fmt in ("hf", "trl")
        parts = tmp / "_parts" if datasets_formats else tmp
        parts.mkdir(exist_ok=True)
        files = _SplitFiles(parts, fmt, language)
        seen: dict[str, str] = {}
        try:
            for batch in iter_shard_batches(build_dir):
                if language not in (None, "python"):
                    batch = batch.filter(pc.equal(batch.column("test_type"), "stdio"))
                if split_by and split_by in batch.column_names:
                    _check_split_values(batch, split_by, seen)
                names = pa.array(_split_names(batch, sp, split_by))
                for name in pc.unique(names).to_pylist():
                    files.write(name, batch.filter(pc.equal(names, name)))
        finally:
            files.close()
        if datasets_formats:  # a DatasetDict on disk, loaded back with datasets.load_from_disk
            import datasets

            datasets.disable_progress_bars()
            dd = datasets.DatasetDict(
                {
                    _safe(n): datasets.Dataset.from_parquet(
                        str(path), cache_dir=str(tmp / "_cache")
                    )
                    for n, path in files.paths.items()
                }
            )
            dd.save_to_disk(str(tmp / "_dataset"))
            final = tmp / "_dataset"
        else:
            if files.schema is not None:
                _write_card(tmp, fmt, files.paths, files.schema, files.count)
            final = tmp
        _write_marker(final, fmt, build_dir, manifest, files.count, split, split_by, language, build_name)
        _put_in_place(final, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    _remove_stale_scratch(out)
    return dict(files.count)


def _write_marker(
    directory: Path,
    fmt: str,
    build_dir: Path,
    manifest: dict[str, Any],
    counts: dict[str, int],
    split: str | None,
    split_by: str | None,
    language: str | None,
    build_name: str | None = None,
) -> None:
    marker = {
        "format": fmt,
        "build": build_name or str(build_dir.resolve()),
        "build_manifest_sha256": sha256_file(build_dir / MANIFEST),
        "codemix_version": manifest.get("codemix_version"),
        "options": {"split": split, "split_by": split_by, "language": language},
        "rows": dict(sorted(counts.items())),
        "files": _files_under(directory),
    }
    (directory / EXPORT_MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
