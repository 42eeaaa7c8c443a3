"""DeepCoder-Preview (configs lcbv5, primeintellect, taco, codeforces).

`tests` is JSON text (or already decoded): either a list of {input, output, ...} or TACO's
{inputs, outputs, fn_name?}. In a list, LiveCodeBench's `testtype: functional` means call tests
whose input holds one JSON value per line and whose output is the JSON return value;
PrimeIntellect's `type: function_call` means call tests whose input is the list of arguments and
whose output is a one-element list holding the return value (unwrapped here, as
`primeintellect.py` does). TACO-form call outputs are unwrapped unless the starter defines
`class Solution` (LeetCode; the rows carry no site column, see `taco.call_outputs_wrapped`).
The entry point comes from `metadata.func_name` or `fn_name`.

Statements: PrimeIntellect's instructions are stripped (`source_prompt` keeps the original);
a statement ending in rllm's limits footer ("Time Limit: 1000 ms / Memory Limit: 256 MB", or
CodeContests' "Time Limit: {'seconds': 2, 'nanos': 0} / Memory Limit: 256000000 Bytes") gives
the time and memory limits. `solutions` is *partly unverified* upstream: kept, verified by our
verify stage. There is no id column: the id is `<config>-<row index>`. The `codeforces` config
has only a `test` split (`DEEPCODER_SPLITS`).
"""

from __future__ import annotations

import re
from typing import Any

from curation.schema import RecordError, blank_record
from curation.sources.callnorm import (
    call_args,
    call_output,
    functional_test,
    judged_fields,
    list_test,
    list_test_kind,
    stdio_text,
    taco_tests,
)
from curation.sources.columns import Columns
from curation.sources.extract import extract_code
from curation.sources.fields import json_field, solution_list, text_or_none
from curation.sources.instructions import strip_instructions
from curation.sources.taco import call_outputs_wrapped

__all__ = ["convert_deepcoder", "statement_limits", "DEEPCODER_SPLITS", "DEEPCODER_COLUMNS"]

#: The hub's configs and their splits, the first being the default.
DEEPCODER_SPLITS: dict[str, tuple[str, ...]] = {
    "lcbv5": ("train", "test"),
    "primeintellect": ("train",),
    "taco": ("train",),
    "codeforces": ("test",),
}
#: What the converter reads (rllm's `scripts/data/deepcoder_dataset.py`; NeMo-RL's loader).
DEEPCODER_COLUMNS = Columns(
    required={"problem": ("string",), "tests": ("string", "list<struct>", "struct")},
    optional={
        "solutions": ("list<string>", "string"), "metadata": ("string", "struct"),
        "starter_code": ("string",),
    },
)  # fmt: skip

_LIMITS_MS = re.compile(r"\nTime Limit: (\d+(?:\.\d+)?) ms\nMemory Limit: (\d+(?:\.\d+)?) MB\s*\Z")
_LIMITS_PROTO = re.compile(
    r"\nTime Limit: \{'seconds': (\d+), 'nanos': (\d+)\}\nMemory Limit: (\d+) Bytes\s*\Z"
)


def statement_limits(statement: str) -> tuple[float | None, float | None]:
    """(seconds, megabytes) from rllm's limits footer at the end of a statement, else Nones."""
    m = _LIMITS_MS.search(statement)
    if m:
        return float(m.group(1)) / 1000.0, float(m.group(2))
    m = _LIMITS_PROTO.search(statement)
    if m:
        seconds = int(m.group(1)) + int(m.group(2)) / 1e9
        return (seconds or None), (int(m.group(3)) / 1e6 or None)
    return None, None


def _kind(test: dict[str, Any]) -> str:
    """'lcb' (LiveCodeBench functional), 'pi' (PrimeIntellect function_call) or 'stdin'."""
    if test.get("testtype") == "functional":
        return "lcb"
    if test.get("type") == "function_call":
        return "pi"
    return "stdin"


def _list_tests(raw: list[Any], fn: str | None) -> tuple[str, list[dict[str, str]], str | None]:
    kind = list_test_kind(raw, _kind)
    tests = []
    for i, t in enumerate(raw):
        t = list_test(t, i)
        if kind == "stdin":
            tests.append({"input": stdio_text(t["input"]), "output": stdio_text(t["output"])})
            continue
        fn = fn or t.get("fn_name") or (t.get("metadata") or {}).get("func_name")
        if kind == "pi":
            tests.append({"input": call_args(t["input"]), "output": call_output(t["output"], True)})
        else:
            tests.append(functional_test(t, i))
    return ("stdio" if kind == "stdin" else "call"), tests, fn


def convert_deepcoder(
    row: dict[str, Any], index: int = 0, config: str = "deepcoder"
) -> dict[str, Any]:
    """A DeepCoder row to a canonical record (pure)."""
    rid = text_or_none(row.get("id")) or f"{config}-{index}"
    partial = {"id": rid, "statement": row.get("problem")}
    try:
        original = text_or_none(row.get("problem"))
        if original is None:
            raise RecordError("statement", "problem is empty")
        statement, starter_in_prompt = strip_instructions(original)
        starter = text_or_none(row.get("starter_code")) or starter_in_prompt
        meta = json_field(row.get("metadata"), "metadata", default={}) or {}
        fn = meta.get("func_name") if isinstance(meta, dict) else None
        raw = json_field(row.get("tests"), "tests", default=[])
        if isinstance(raw, dict):
            test_type, tests, fn2 = taco_tests(raw, bool(call_outputs_wrapped(None, starter)))
            fn = fn or fn2
        elif isinstance(raw, list):
            test_type, tests, fn = _list_tests(raw, fn)
        else:
            raise RecordError("tests", f"must be a list or a TACO object, got {type(raw).__name__}")
        if test_type == "call" and not fn:
            raise RecordError("entry_point", "call tests but no func_name in metadata")
        sols = [extract_code(s) or s for s in solution_list(row.get("solutions"))]
    except RecordError as e:
        raise RecordError(e.field, e.message, partial) from None
    seconds, megabytes = statement_limits(statement)
    return blank_record(
        {
            "id": rid,
            "statement": statement,
            **judged_fields(test_type, tests, fn, starter),
            "solutions": sols,
            "time_limit_s": seconds,
            "memory_limit_mb": megabytes,
            "difficulty_label": text_or_none(meta.get("difficulty"))
            if isinstance(meta, dict)
            else None,
            "source_prompt": original if statement != original else None,
        }
    )
