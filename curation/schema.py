"""The canonical problem record in the build: normalising and checking it (turning records into
Arrow tables and files, and back, is `curation.record_files`).

The record's fields, Arrow types and `RecordError` are defined once, in `filters.contracts`, and
imported from there (`curation` re-exports the ones users need). Every source is converted to this
record; the same fields are the canonical JSONL format. Stages add columns to it but never change
these fields.
"""

from __future__ import annotations

import json
import math
from typing import Any

from filters.contracts import PROBLEM_FIELDS, TEST_TYPES, RecordError
from filters.tools.bigints import BIG_INT_DIGITS, big_ints

__all__ = [
    "RecordError",
    "blank_record",
    "normalize_record",
    "validate_record",
    "BIG_INT_DIGITS",
    "big_ints",
]

_REQUIRED = ("id", "source", "statement", "language", "test_type")

_LIST_FIELDS = (
    "tests",
    "solutions",
    "incorrect_solutions",
    "tags",
    "solution_languages",
    "incorrect_solution_languages",
)
#: each program list and the list naming its programs' languages (empty: all Python)
_LANGUAGE_LISTS = {
    "solutions": "solution_languages",
    "incorrect_solutions": "incorrect_solution_languages",
}
_OPTIONAL_STR = (
    "starter_code",
    "entry_point",
    "test_code",
    "checker",
    "difficulty_label",
    "source_prompt",
)


def _as_str(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def blank_record(fields: dict[str, Any]) -> dict[str, Any]:
    """A full record in field order: `fields` over the defaults (None, empty lists, python)."""
    rec: dict[str, Any] = {name: [] if name in _LIST_FIELDS else None for name in PROBLEM_FIELDS}
    rec["language"] = "python"
    rec.update(fields)
    return rec


def normalize_record(raw: dict[str, Any]) -> dict[str, Any]:
    """Fill defaults for missing optional fields and coerce harmless variants; then validate.

    Raises RecordError naming the first bad field. Unknown keys are dropped.
    """
    if not isinstance(raw, dict):
        raise RecordError("<row>", f"expected a JSON object, got {type(raw).__name__}")
    rec: dict[str, Any] = {}
    for name in PROBLEM_FIELDS:
        rec[name] = raw.get(name)
    if rec["language"] is None:
        rec["language"] = "python"
    if rec["id"] is not None and not isinstance(rec["id"], str) and isinstance(rec["id"], int):
        rec["id"] = str(rec["id"])
    for name in _LIST_FIELDS:
        if rec[name] is None:
            rec[name] = []
    tests = rec["tests"]
    if isinstance(tests, list):
        fixed = []
        for i, t in enumerate(tests):
            if not isinstance(t, dict) or "input" not in t or "output" not in t:
                raise RecordError("tests", f"test {i} must be an object with 'input' and 'output'")
            fixed.append({"input": _as_str(t["input"]), "output": _as_str(t["output"])})
        rec["tests"] = fixed
    for name in ("time_limit_s", "memory_limit_mb"):
        v = rec[name]
        if isinstance(v, bool) or (v is not None and not isinstance(v, (int, float))):
            raise RecordError(name, f"must be a number or null, got {v!r}")
        if v is not None:
            v = float(v)
            if not math.isfinite(v) or v <= 0:
                raise RecordError(name, f"must be positive, got {v!r}")
            rec[name] = v
    validate_record(rec)
    return rec


def validate_record(rec: dict[str, Any]) -> None:
    """Check a record against the schema; raise RecordError naming the bad field."""
    for name in _REQUIRED:
        v = rec.get(name)
        if not isinstance(v, str):
            raise RecordError(name, "is required and must be a string")
    if not rec["id"].strip():
        raise RecordError("id", "must not be empty")
    if not rec["source"].strip() or "/" in rec["source"]:
        raise RecordError("source", f"must be a non-empty name without '/', got {rec['source']!r}")
    if not rec["statement"].strip():
        raise RecordError("statement", "must not be empty")
    if rec["test_type"] not in TEST_TYPES:
        raise RecordError("test_type", f"must be one of {', '.join(TEST_TYPES)}, got {rec['test_type']!r}")
    for name in _OPTIONAL_STR:
        v = rec.get(name)
        if v is not None and not isinstance(v, str):
            raise RecordError(name, "must be a string or null")
    if rec.get("tests_complete") not in (None, True, False):
        raise RecordError("tests_complete", "must be true, false or null")
    for name in ("solutions", "incorrect_solutions", "tags"):
        v = rec.get(name)
        if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
            raise RecordError(name, "must be a list of strings")
    for programs, name in _LANGUAGE_LISTS.items():
        v = rec.get(name)
        if v is None:
            continue
        if not isinstance(v, list) or not all(isinstance(s, str) and s for s in v):
            raise RecordError(name, "must be a list of language names")
        if v and len(v) != len(rec[programs]):
            raise RecordError(name, f"names {len(v)} languages for {len(rec[programs])} {programs}")
    tests = rec.get("tests")
    if not isinstance(tests, list):
        raise RecordError("tests", "must be a list of {input, output}")
    for i, t in enumerate(tests):
        if not (isinstance(t, dict) and isinstance(t.get("input"), str) and isinstance(t.get("output"), str)):
            raise RecordError("tests", f"test {i} must have string 'input' and 'output'")
    tt = rec["test_type"]
    if tt in ("call", "assert") and not rec.get("entry_point"):
        raise RecordError("entry_point", f"is required for test_type={tt!r}")
    if tt == "call":
        for i, t in enumerate(tests):
            try:
                with big_ints():
                    args = json.loads(t["input"])
            except json.JSONDecodeError as e:
                raise RecordError("tests", f"test {i}: call input must be a JSON array ({e.msg})") from None
            except ValueError as e:
                raise RecordError("tests", f"test {i}: call input: {e}") from None
            if not isinstance(args, list):
                raise RecordError("tests", f"test {i}: call input must be a JSON array of arguments")
            try:
                with big_ints():
                    json.loads(t["output"])
            except json.JSONDecodeError as e:
                raise RecordError("tests", f"test {i}: call output must be JSON ({e.msg})") from None
            except ValueError as e:
                raise RecordError("tests", f"test {i}: call output: {e}") from None
    if tt == "assert" and not rec.get("test_code"):
        raise RecordError("test_code", "is required for test_type='assert'")
    for name in ("time_limit_s", "memory_limit_mb"):
        v = rec.get(name)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0):
            raise RecordError(name, "must be a positive number or null")
