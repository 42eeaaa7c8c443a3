"""The columns a hub loader expects, checked against what a dataset holds before rows are read.

A hub dataset can rename or retype a column; a loader that reads on would turn every row into a
wrong record. Each hub source declares the columns its converter reads (`Columns`); the found
columns come from a Parquet/Arrow schema, from `datasets` features, or from a JSON file's first
row. A difference is one UserError naming the dataset, the column, what was expected and found.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from filters.contracts import UserError

__all__ = ["Columns", "kind_of_arrow", "kind_of_value", "kinds_of_schema", "kinds_of_row"]


def kind_of_arrow(t: pa.DataType) -> str:
    """A column's kind from its Arrow type: string, int, float, bool, timestamp, struct, list<...>,
    null."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "float"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_null(t):
        return "null"
    if pa.types.is_timestamp(t) or pa.types.is_date(t):  # JSON's ISO dates, as datasets reads them
        return "timestamp"
    if pa.types.is_struct(t) or pa.types.is_map(t):
        return "struct"
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return f"list<{kind_of_arrow(t.value_type)}>"
    return str(t)


def kind_of_value(v: Any) -> str:
    """A JSON value's kind, in the same words (a list takes its first non-null element's kind)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (datetime.date, datetime.datetime)):
        return "timestamp"
    if isinstance(v, dict):
        return "struct"
    if isinstance(v, list):
        inner = next((kind_of_value(x) for x in v if x is not None), "null")
        return f"list<{inner}>"
    return type(v).__name__


def kinds_of_schema(schema: pa.Schema) -> dict[str, str]:
    """Column name -> kind for an Arrow schema."""
    return {f.name: kind_of_arrow(f.type) for f in schema}


def kinds_of_row(row: dict[str, Any]) -> dict[str, str]:
    """Column name -> kind for one JSON row (a JSON file has no schema but its rows)."""
    return {k: kind_of_value(v) for k, v in row.items()}


def _fits(found: str, accepted: tuple[str, ...]) -> bool:
    if found == "null" or found in accepted:
        return True
    if found == "int" and "float" in accepted:
        return True
    if found.startswith("list<") and found.endswith("null>"):  # an empty or all-null list
        return any(a.startswith("list<") for a in accepted)
    return False


@dataclass(frozen=True)
class Columns:
    """Columns a converter reads: `required` must exist, `optional` may; each with its kinds.

    Other columns are ignored. A kind is one of string, int, float, bool, timestamp, struct,
    list<KIND>; a null column (no values) fits any kind, an int column fits float.
    """

    required: dict[str, tuple[str, ...]]
    optional: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def mismatch(self, found: dict[str, str]) -> str | None:
        """The first difference as '<column>: expected ..., found ...', or None."""
        for name, accepted in self.required.items():
            if name not in found:
                have = ", ".join(sorted(found)) or "none"
                return f"column {name!r}: expected {' or '.join(accepted)}, found no such column (columns: {have})"
        for name, accepted in {**self.required, **self.optional}.items():
            kind = found.get(name)
            if kind is not None and not _fits(kind, accepted):
                return f"column {name!r}: expected {' or '.join(accepted)}, found {kind}"
        return None

    def check(self, where: str, found: dict[str, str]) -> None:
        """Raise UserError when `found` does not fit; `where` names the dataset and file."""
        problem = self.mismatch(found)
        if problem:
            raise UserError(
                f"{where}: {problem}; the loader expects the schema in docs/sources.md (the dataset changed, or this is another dataset)"
            )
