"""A sampler's rows against a trainer's dataset: the same problems at the same indices, or one line
that says where they differ.

A sampler draws global row indices; the trainer reads those indices from its own train set. When
the two were built from different tables (a build's shards and an export with a held-out split, a
shuffled copy, another filter), every index silently names another problem. `check_rows` compares
them by problem id where both sides know it, by the grouping column where the sampler knows it,
and by size always.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from filters.contracts import PROBLEM_ID

__all__ = ["ID_COLUMN", "RowMismatch", "check_rows", "dataset_column"]

#: The column that names a problem in codemix's shards and in every export (`filters.contracts`).
ID_COLUMN = PROBLEM_ID


class RowMismatch(ValueError):
    """The sampler's rows are not the dataset's rows."""


def dataset_column(dataset: Any, name: str) -> list | None:
    """Column `name` of a map-style dataset as a list (a `datasets.Dataset`, a `pyarrow.Table`, a
    pandas DataFrame or a dict of lists), or None when it has no such column (or is another kind)."""
    names = getattr(dataset, "column_names", None)
    if names is None and hasattr(dataset, "columns"):
        names = [str(c) for c in dataset.columns]
    if names is None and isinstance(dataset, Mapping):
        names = list(dataset)
    if names is None or name not in names:
        return None
    if hasattr(dataset, "column") and callable(dataset.column):  # pyarrow
        return list(dataset.column(name).to_pylist())
    col = dataset[name]
    return col.tolist() if hasattr(col, "tolist") else list(col)


def _rows_of(sampler: Any) -> np.ndarray:
    return np.concatenate([np.asarray(g, dtype=np.int64) for g in sampler.groups])


def check_rows(
    sampler: Any, dataset: Any, where: str = "the train set", ids: list | None = None
) -> None:
    """Raise `RowMismatch` unless every row `sampler` can draw names the same problem in `dataset`.

    Checked: the sampler's largest index fits the dataset; where the sampler knows its rows'
    problem ids (`row_ids`, set by `from_shards`/`from_dataset`) and the dataset has a `problem_id`
    column, the ids agree at every drawn index; where the sampler knows the column it grouped by
    (`group_column`), the dataset's labels agree with the sampler's sources. `ids` gives the
    dataset's problem ids where they are not a top-level column (verl's `extra_info`).
    """
    try:
        n = len(dataset)
    except TypeError:
        return  # an iterable dataset: nothing to index, the adapters refuse it themselves
    rows = np.sort(_rows_of(sampler))
    hint = (
        f"build the sampler from the dataset the trainer reads, e.g. "
        f"{type(sampler).__name__}.from_dataset(train_dataset, batch_size)"
    )
    mine_ids = getattr(sampler, "row_ids", None)
    theirs = ids if ids is not None else dataset_column(dataset, ID_COLUMN)
    past = rows[rows >= n]
    if mine_ids is not None and theirs is not None:
        inside = rows[rows < n]
        mine = np.asarray([str(mine_ids[i]) for i in inside], dtype=object)
        other = np.asarray([str(theirs[i]) for i in inside], dtype=object)
        bad = np.flatnonzero(mine != other)
        if bad.size or past.size:
            first = (
                f"; row {int(inside[bad[0]])} is {mine[bad[0]]!r} in the sampler, "
                f"{other[bad[0]]!r} in {where}"
                if bad.size
                else ""
            )
            raise RowMismatch(
                f"the sampler's rows are not {where}'s: of its {rows.size} rows, "
                + (f"{past.size} are past the {n} rows of {where} and " if past.size else "")
                + f"{bad.size} name another problem{first}: {hint}"
            )
        return
    if past.size:
        raise RowMismatch(
            f"the sampler draws rows up to {int(rows.max())} but {where} has {n} rows: {hint}"
        )
    column = getattr(sampler, "group_column", None)
    labels = dataset_column(dataset, column) if column else None
    if labels is not None:
        names = np.asarray(sampler.names, dtype=object)[sampler.source_of(rows)]
        other = np.asarray([str(labels[i]) for i in rows], dtype=object)
        bad = np.flatnonzero(names != other)
        if bad.size:
            i = int(rows[bad[0]])
            raise RowMismatch(
                f"the sampler's rows are not {where}'s: {bad.size} of {rows.size} rows have "
                f"another {column!r} (row {i} is {names[bad[0]]!r} in the sampler, "
                f"{other[bad[0]]!r} in {where}): {hint}"
            )
