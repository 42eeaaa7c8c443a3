"""Exports of a finished build to the formats trainers read: jsonl, parquet, hf, verl, trl.

Every format writes one file (or dataset) per split into the output directory. Splits are
deterministic: `test=0.05` puts a problem in `test` when a hash of its `problem_id` says so,
so the same problem lands in the same split on every export.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from curation.store import iter_shard_batches, require_build
from filters.errors import UserError
from filters.ground_truth import to_ground_truth

__all__ = ["FORMATS", "parse_split", "split_of", "prompt_text", "verl_row", "trl_row", "export"]

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
        raise UserError(f"--split must be NAME=FRACTION with 0 < FRACTION < 1 and NAME not 'train', got {spec!r}")
    return name, f


def split_of(problem_id: str, split: tuple[str, float] | None) -> str:
    """Deterministic split assignment from a hash of the problem id."""
    if split is None:
        return "train"
    h = int.from_bytes(hashlib.sha256(problem_id.encode()).digest()[:8], "big") / 2**64
    return split[0] if h < split[1] else "train"


def prompt_text(row: dict[str, Any]) -> str:
    """The user prompt for a problem: statement, starter code and how to answer."""
    parts = [row["statement"].strip()]
    starter = (row.get("starter_code") or "").strip()
    if row["test_type"] == "stdio":
        how = "Read the input from standard input and write the answer to standard output."
    else:
        how = f"Implement `{row.get('entry_point')}` in Python."
    if starter and starter not in parts[0]:
        parts.append(f"Start from this code:\n```python\n{starter}\n```")
    parts.append(how + " Put your complete solution in one ```python code block.")
    return "\n\n".join(parts)


def _meta(row: dict[str, Any], split: str, index: int) -> dict[str, Any]:
    return {
        "split": split,
        "index": index,
        "problem_id": row["problem_id"],
        "test_type": row["test_type"],
        "difficulty": row.get("difficulty"),
        "difficulty_bucket": row.get("difficulty_bucket"),
    }


def verl_row(row: dict[str, Any], split: str, index: int) -> dict[str, Any]:
    """One row of the parquet verl's RL trainer reads."""
    return {
        "data_source": row["source"],
        "prompt": [{"role": "user", "content": prompt_text(row)}],
        "ability": "code",
        "reward_model": {"style": "rule", "ground_truth": to_ground_truth(row)},
        "extra_info": _meta(row, split, index),
    }


def trl_row(row: dict[str, Any], split: str, index: int) -> dict[str, Any]:
    """One row for TRL: a conversational `prompt` plus the columns its reward functions receive."""
    return {
        "prompt": [{"role": "user", "content": prompt_text(row)}],
        "problem_id": row["problem_id"],
        "source": row["source"],
        "ground_truth": to_ground_truth(row),
        "difficulty": row.get("difficulty"),
        "difficulty_bucket": row.get("difficulty_bucket"),
    }


def _rows(out: Path, split: tuple[str, float] | None, split_by: str | None) -> Iterator[tuple[str, dict[str, Any]]]:
    for batch in iter_shard_batches(out):
        if split_by and split_by not in batch.column_names:
            raise UserError(f"--split-by {split_by!r}: no such column; columns: {', '.join(batch.column_names)}")
        for row in batch.to_pylist():
            name = str(row[split_by]) if split_by else split_of(row["problem_id"], split)
            yield name, row


def export(
    build_dir: str | Path, fmt: str, out: str | Path, split: str | None = None, split_by: str | None = None
) -> dict[str, int]:
    """Write the build's problems in `fmt` under `out`; returns rows per split."""
    build_dir, out = Path(build_dir), Path(out)
    require_build(build_dir)
    if fmt not in FORMATS:
        raise UserError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    if split and split_by:
        raise UserError("pass either --split or --split-by, not both")
    sp = parse_split(split)
    groups: dict[str, list[dict[str, Any]]] = {}
    for name, row in _rows(build_dir, sp, split_by):
        rows = groups.setdefault(name, [])
        if fmt == "verl":
            row = verl_row(row, name, len(rows))
        elif fmt == "trl":
            row = trl_row(row, name, len(rows))
        rows.append(row)
    if out.exists():
        shutil.rmtree(out) if out.is_dir() else out.unlink()
    out.mkdir(parents=True)
    safe = {name: "".join(c if c.isalnum() or c in "-_." else "_" for c in name) for name in groups}
    if fmt == "jsonl":
        for name, rows in groups.items():
            with open(out / f"{safe[name]}.jsonl", "w", encoding="utf-8") as f:
                for r in rows:
                    f.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
    elif fmt in ("parquet", "verl"):
        for name, rows in groups.items():
            pq.write_table(pa.Table.from_pylist(rows), out / f"{safe[name]}.parquet", compression="zstd")
    else:  # hf, trl: a DatasetDict on disk, loaded back with datasets.load_from_disk
        import datasets

        datasets.disable_progress_bars()
        dd = datasets.DatasetDict({safe[n]: datasets.Dataset.from_list(rows) for n, rows in groups.items()})
        dd.save_to_disk(str(out))
    return {name: len(rows) for name, rows in groups.items()}
