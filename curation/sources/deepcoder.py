"""DeepCoder-Preview (configs lcbv5, primeintellect, taco, codeforces).

`tests` is JSON text: either a list of {input, output, testtype?, metadata?} (LiveCodeBench
style: "functional" means call tests, one JSON value per input line; PrimeIntellect's
`type: function_call` / `fn_name` are read too) or TACO's
{inputs, outputs, fn_name?}. The entry point comes from `metadata.func_name` or `fn_name`.
`solutions` is *partly unverified* upstream: kept, verified by our verify stage. There is no id
column: the id is `<config>-<row index>`.
"""

from __future__ import annotations

import json
from typing import Any

from curation.schema import RecordError, blank_record
from curation.sources.callnorm import entry_point_for, lines_to_args, stdio_text, taco_tests
from curation.sources.extract import extract_code
from curation.sources.fields import json_field, solution_list, text_or_none

__all__ = ["convert_deepcoder"]


def _kind(test: dict[str, Any]) -> str:
    """'functional' or 'stdin', from LCB's `testtype` or PrimeIntellect's `type`."""
    kind = str(test.get("testtype") or test.get("type") or "stdin")
    return "functional" if kind in ("functional", "function_call") else "stdin"


def _list_tests(raw: list[Any], fn: str | None) -> tuple[str, list[dict[str, str]], str | None]:
    kinds = {_kind(t) for t in raw if isinstance(t, dict)}
    if len(kinds) > 1:
        raise RecordError("tests", f"mixes test types {sorted(kinds)}")
    kind = kinds.pop() if kinds else "stdin"
    tests = []
    for i, t in enumerate(raw):
        if not isinstance(t, dict) or "input" not in t or "output" not in t:
            raise RecordError("tests", f"test {i} must be an object with input and output")
        if kind == "functional":
            fn = fn or t.get("fn_name") or (t.get("metadata") or {}).get("func_name")
            out = t["output"] if isinstance(t["output"], str) else json.dumps(t["output"])
            try:
                json.loads(out)
            except json.JSONDecodeError as e:
                raise RecordError(
                    "tests", f"test {i}: functional output is not JSON ({e.msg})"
                ) from None
            args = t["input"] if isinstance(t["input"], list) else lines_to_args(str(t["input"]))
            tests.append({"input": json.dumps(args), "output": out.strip()})
        else:
            tests.append({"input": stdio_text(t["input"]), "output": stdio_text(t["output"])})
    return ("call" if kind == "functional" else "stdio"), tests, fn


def convert_deepcoder(
    row: dict[str, Any], index: int = 0, config: str = "deepcoder"
) -> dict[str, Any]:
    """A DeepCoder row to a canonical record (pure)."""
    rid = text_or_none(row.get("id")) or f"{config}-{index}"
    partial = {"id": rid, "statement": row.get("problem")}
    try:
        statement = text_or_none(row.get("problem"))
        if statement is None:
            raise RecordError("statement", "problem is empty")
        meta = json_field(row.get("metadata"), "metadata", default={}) or {}
        fn = meta.get("func_name") if isinstance(meta, dict) else None
        raw = json_field(row.get("tests"), "tests", default=[])
        if isinstance(raw, dict):
            test_type, tests, fn2 = taco_tests(raw)
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
    starter = text_or_none(row.get("starter_code"))
    return blank_record({
        "id": rid,
        "statement": statement,
        "starter_code": starter,
        "test_type": test_type,
        "entry_point": entry_point_for(fn, starter) if test_type == "call" else None,
        "tests": tests,
        "solutions": sols,
        "difficulty_label": text_or_none(meta.get("difficulty"))
        if isinstance(meta, dict)
        else None,
    })
