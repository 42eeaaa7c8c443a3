"""LiveCodeBench code_generation_lite: public + private tests, stdin or functional.

Private tests are JSON text or base64(zlib(pickle(JSON text))); the pickle is decoded with a
restricted unpickler (`safepickle`) and anything but plain data makes the row malformed.
Functional inputs hold one JSON value per line, one line per argument; they become a JSON
array. The entry point is `metadata.func_name`, as `Solution().name` when the starter code has
`class Solution`. LiveCodeBench ships no reference solutions; `tags` holds the platform. `start`/`end` (ISO dates,
inclusive) keep only problems whose `contest_date` falls in the window: the usual way to
split training problems from evaluation ones.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from curation.schema import RecordError, blank_record
from curation.sources.callnorm import functional_test, judged_fields, list_test, list_test_kind
from curation.sources.columns import Columns
from curation.sources.fields import json_field, text_or_none
from curation.sources.hub import ReleaseFiles
from curation.sources.safepickle import UnsafePickleError, decode_lcb_blob
from filters.contracts import UserError

__all__ = [
    "convert_lcb",
    "decode_private_tests",
    "check_lcb_options",
    "lcb_release_names",
    "LCB_COLUMNS",
    "LCB_FILES",
]

_TEXT = ("string",)
#: What the converter reads (LiveCodeBench `lcb_runner/benchmarks/code_generation.py`: all text).
LCB_COLUMNS = Columns(
    required={"question_content": _TEXT, "public_test_cases": _TEXT, "private_test_cases": _TEXT},
    optional={
        # contest_date: ISO text, which datasets' JSON reader turns into a timestamp
        "question_id": _TEXT, "contest_date": ("string", "timestamp"), "starter_code": _TEXT,
        "difficulty": _TEXT,
        "platform": _TEXT, "metadata": _TEXT,
    },
)  # fmt: skip


def lcb_release_names(version_tag: str) -> list[str]:
    """The JSONL files of a LiveCodeBench release: test.jsonl, test2.jsonl ... test<n>.jsonl."""
    try:
        n = int(str(version_tag).rsplit("v", 1)[1])
    except (IndexError, ValueError):
        raise UserError(
            f"lcb: unknown version_tag {version_tag!r}; use release_v1 ... release_v6"
        ) from None
    return ["test.jsonl" if i == 1 else f"test{i}.jsonl" for i in range(1, n + 1)]


#: The release's files on the hub (and in a local snapshot), chosen by `version_tag`.
LCB_FILES = ReleaseFiles(
    option="version_tag",
    default="release_v6",
    names=lcb_release_names,
    pattern="test*.jsonl",
    described="test.jsonl ... test6.jsonl",
)


def check_lcb_options(start: str | None = None, end: str | None = None) -> None:
    """Reject a window bound that is not an ISO date (YYYY-MM-DD)."""
    for name, v in (("start", start), ("end", end)):
        if v is None:
            continue
        try:
            date.fromisoformat(str(v)[:10])
        except ValueError:
            raise UserError(
                f"lcb: option {name}={v!r} is not a date; use YYYY-MM-DD, e.g. start=2024-08-01"
            ) from None


def decode_private_tests(value: Any) -> list[Any]:
    """Private tests as a list, from JSON text or the compressed pickle."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return []
    if isinstance(value, list):
        return value
    text = value.strip()
    if text.startswith("["):
        return json_field(text, "tests", default=[])
    try:
        obj = decode_lcb_blob(text)
    except UnsafePickleError as e:
        raise RecordError("tests", f"private_test_cases: {e}") from None
    if isinstance(obj, bytes):
        obj = obj.decode("utf-8", "replace")
    if isinstance(obj, str):
        obj = json_field(obj, "tests", default=[])
    if not isinstance(obj, list):
        raise RecordError("tests", "private_test_cases does not decode to a list")
    return obj


def _lcb_kind(test: dict[str, Any]) -> str:
    return str(test.get("testtype", "stdin"))


def _convert_tests(raw: list[Any]) -> tuple[str, list[dict[str, str]]]:
    kind = list_test_kind(raw, _lcb_kind)
    tests = []
    for i, t in enumerate(raw):
        t = list_test(t, i)
        if kind == "functional":
            tests.append(functional_test(t, i))
        else:
            tests.append({"input": str(t["input"]), "output": str(t["output"])})
    return ("call" if kind == "functional" else "stdio"), tests


def convert_lcb(
    row: dict[str, Any], index: int = 0, start: str | None = None, end: str | None = None
) -> dict[str, Any] | None:
    """A LiveCodeBench row to a canonical record; None when outside the date window (pure)."""
    rid = text_or_none(row.get("question_id")) or str(index)
    partial = {"id": rid, "statement": row.get("question_content")}
    day = str(row.get("contest_date") or "")[:10]
    if (start or end) and not day:
        return None
    if start and day < str(start)[:10]:
        return None
    if end and day > str(end)[:10]:
        return None
    try:
        statement = text_or_none(row.get("question_content"))
        if statement is None:
            raise RecordError("statement", "question_content is empty")
        raw = list(json_field(row.get("public_test_cases"), "tests", default=[]))
        raw += decode_private_tests(row.get("private_test_cases"))
        test_type, tests = _convert_tests(raw)
        meta = json_field(row.get("metadata"), "metadata", default={}) or {}
    except RecordError as e:
        raise RecordError(e.field, e.message, partial) from None
    starter = text_or_none(row.get("starter_code"))
    fn = meta.get("func_name") if isinstance(meta, dict) else None
    return blank_record(
        {
            "id": rid,
            "statement": statement,
            **judged_fields(test_type, tests, fn, starter),
            "difficulty_label": text_or_none(row.get("difficulty")),
            "tags": [p for p in [text_or_none(row.get("platform"))] if p],
        }
    )
