"""Small parsers for raw source fields: JSON-in-a-string, numbers with units, tag lists.

JSON goes through `loads`/`dumps`, which accept integers longer than Python's default
4,300-digit limit on int/str conversion (APPS and TACO hold some) up to
`curation.schema.BIG_INT_DIGITS`.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from curation.schema import BIG_INT_DIGITS, RecordError, big_ints

__all__ = [
    "loads",
    "dumps",
    "json_field",
    "number_in",
    "str_list",
    "text_or_none",
    "solution_list",
]

_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def _too_long(e: ValueError, field: str) -> RecordError:
    return RecordError(field, f"holds an integer longer than {BIG_INT_DIGITS:,} digits ({e})")


def loads(text: str, field: str) -> Any:
    """`json.loads` with big integers; RecordError naming `field` for invalid JSON."""
    try:
        with big_ints():
            return json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(field, f"is not valid JSON ({e.msg} at {e.pos})") from None
    except ValueError as e:  # an integer past BIG_INT_DIGITS
        raise _too_long(e, field) from None


def dumps(value: Any, field: str = "tests") -> str:
    """`json.dumps` with big integers (the canonical JSON of a call test's arguments or value)."""
    try:
        with big_ints():
            return json.dumps(value)
    except ValueError as e:
        raise _too_long(e, field) from None


def json_field(value: Any, field: str, default: Any = None) -> Any:
    """A field that may hold JSON text or the already-decoded value; '' and None give `default`."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if not isinstance(value, str):
        return value
    return loads(value, field)


def number_in(value: Any) -> float | None:
    """A positive number from 2, 2.5, '2 seconds' or '256 megabytes'; None when there is none."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) if value > 0 else None
    m = _NUMBER.search(str(value))
    if not m:
        return None
    v = float(m.group())
    return v if v > 0 else None


def str_list(value: Any) -> list[str]:
    """A list of strings from a list, a JSON list, or a Python-literal list in a string."""
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return []
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                return [text]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v is not None and str(v).strip()]
    return [str(value)]


def text_or_none(value: Any) -> str | None:
    """The string, or None for missing/blank values."""
    if value is None:
        return None
    text = str(value)
    return text if text.strip() else None


def solution_list(value: Any, field: str = "solutions") -> list[str]:
    """Solutions stored as a JSON string of a list of code strings (TACO/APPS) or a list."""
    sols = json_field(value, field, default=[])
    if isinstance(sols, str):
        sols = [sols]
    if not isinstance(sols, list):
        raise RecordError(field, f"must be a list of code strings, got {type(sols).__name__}")
    return [s for s in sols if isinstance(s, str) and s.strip()]
