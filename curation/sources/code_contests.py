"""DeepMind CodeContests: public + private + generated stdio tests, Python 3 solutions.

Language codes: 1 = Python 2, 2 = C++, 3 = Python 3, 4 = Java; only Python 3 is kept, for both
`solutions` and `incorrect_solutions`. `time_limit` {seconds, nanos} becomes seconds,
`memory_limit_bytes` MiB, and the `difficulty` enum its name (7 = "A", 8 = "B", ...).
Problems that read from a named file (`input_file`) are rejected: we run stdin/stdout only.
"""

from __future__ import annotations

from typing import Any

from curation.schema import RecordError, blank_record
from curation.sources.callnorm import stdio_text
from curation.sources.fields import str_list, text_or_none

__all__ = ["convert_code_contests", "cc_difficulty_label", "PYTHON3"]

PYTHON3 = 3
_ENUM = ["UNKNOWN", "EASY", "MEDIUM", "HARD", "HARDER", "HARDEST", "EXTERNAL"]


def cc_difficulty_label(value: Any) -> str | None:
    """CodeContests difficulty enum -> its name: 0..6 as named, 7.. as Codeforces indices A, B, ..."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value or None
    v = int(value)
    if 0 < v < len(_ENUM):
        return _ENUM[v]
    if v >= len(_ENUM):
        return chr(ord("A") + v - len(_ENUM))
    return None


def _tests(group: Any) -> list[dict[str, str]]:
    if not group:
        return []
    ins, outs = group.get("input") or [], group.get("output") or []
    if len(ins) != len(outs):
        raise RecordError("tests", f"{len(ins)} inputs but {len(outs)} outputs")
    return [{"input": stdio_text(i), "output": stdio_text(o)} for i, o in zip(ins, outs)]


def _python3(group: Any) -> list[str]:
    if not group:
        return []
    langs, sols = group.get("language") or [], group.get("solution") or []
    return [s for lang, s in zip(langs, sols) if lang == PYTHON3 and s and s.strip()]


def convert_code_contests(
    row: dict[str, Any], index: int = 0, include_generated: bool = True
) -> dict[str, Any]:
    """A CodeContests row to a canonical record (pure)."""
    rid = text_or_none(row.get("name")) or str(index)
    partial = {"id": rid}
    statement = text_or_none(row.get("description"))
    if statement is None:
        raise RecordError("statement", "description is empty", partial)
    for f in ("input_file", "output_file"):
        if text_or_none(row.get(f)):
            raise RecordError(
                f, f"reads/writes the file {row[f]!r}; only stdin/stdout is supported", partial
            )
    groups = ["public_tests", "private_tests"] + (["generated_tests"] if include_generated else [])
    try:
        tests = [t for g in groups for t in _tests(row.get(g))]
    except RecordError as e:
        raise RecordError(e.field, e.message, partial) from None
    tl = row.get("time_limit") or {}
    seconds = (tl.get("seconds") or 0) + (tl.get("nanos") or 0) / 1e9 if isinstance(tl, dict) else 0
    mem = row.get("memory_limit_bytes") or 0
    return blank_record({
        "id": rid,
        "statement": statement,
        "test_type": "stdio",
        "tests": tests,
        "solutions": _python3(row.get("solutions")),
        "incorrect_solutions": _python3(row.get("incorrect_solutions")),
        "time_limit_s": seconds or None,
        "memory_limit_mb": mem / (1 << 20) if mem else None,
        "difficulty_label": cc_difficulty_label(row.get("difficulty")),
        "tags": str_list(row.get("cf_tags")),
    })
