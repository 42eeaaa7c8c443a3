"""Normalise the many encodings of tests to the canonical ones.

Canonical `call` test: `input` is a JSON array of positional arguments, `output` the JSON return
value. Canonical `stdio` test: raw text in, raw text out.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from curation.schema import RecordError, big_ints
from curation.sources.fields import dumps, loads

__all__ = [
    "stdio_text",
    "call_args",
    "call_output",
    "lines_to_args",
    "entry_point_for",
    "judged_fields",
    "taco_tests",
    "list_test_kind",
    "list_test",
    "functional_test",
]


def stdio_text(value: Any) -> str:
    """Stdin/stdout text; a list of lines (a TACO variant) is joined with newlines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return dumps(value)
    raise RecordError("tests", f"stdio test must be text, got {type(value).__name__}")


def lines_to_args(text: str) -> list[Any]:
    """LiveCodeBench functional input: one JSON value per line, one line per argument."""
    args = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            with big_ints():
                args.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise RecordError("tests", f"argument line {n} is not JSON: {e.msg}") from None
    return args


def call_args(value: Any) -> str:
    """Arguments as a JSON array: a list is the arguments; a string is one JSON value per line."""
    if isinstance(value, list):
        return dumps(value)
    if isinstance(value, str):
        return dumps(lines_to_args(value))
    raise RecordError(
        "tests", f"call input must be a list or JSON text, got {type(value).__name__}"
    )


def call_output(value: Any, wrapped: bool) -> str:
    """The JSON return value; `wrapped` sources (PrimeIntellect, Codewars rows of TACO/APPS)
    hold it as a one-element list.

    A wrapped value that is not a one-element list is taken as the value itself: the original
    testers compare the result with the value and with its first element, and only the value
    can match then.
    """
    if wrapped and isinstance(value, list) and len(value) == 1:
        value = value[0]
    return dumps(value)


def entry_point_for(fn_name: str | None, starter_code: str | None) -> str | None:
    """`Solution().fn` for LeetCode-style starters that define `class Solution`, else `fn`."""
    if not fn_name:
        return None
    if starter_code and "class Solution" in starter_code and "." not in fn_name:
        return f"Solution().{fn_name}"
    return fn_name


def judged_fields(
    test_type: str, tests: list[dict[str, str]], fn_name: str | None, starter_code: str | None
) -> dict[str, Any]:
    """A record's fields that say how it is judged: starter code, test type, tests, and the entry
    point (`entry_point_for`), which only call tests have."""
    return {
        "starter_code": starter_code,
        "test_type": test_type,
        "entry_point": entry_point_for(fn_name, starter_code) if test_type == "call" else None,
        "tests": tests,
    }


def taco_tests(
    io: dict[str, Any], wrapped: bool = True
) -> tuple[str, list[dict[str, str]], str | None]:
    """TACO/APPS `input_output` -> (test_type, tests, fn_name); `wrapped`: call outputs are
    one-element lists (see `call_output`)."""
    inputs, outputs = io.get("inputs") or [], io.get("outputs") or []
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise RecordError("tests", "input_output 'inputs' and 'outputs' must be lists")
    if len(inputs) != len(outputs):
        raise RecordError("tests", f"{len(inputs)} inputs but {len(outputs)} outputs")
    fn_name = io.get("fn_name") or None
    if fn_name:
        tests = [
            {"input": call_args(i), "output": call_output(o, wrapped)}
            for i, o in zip(inputs, outputs)
        ]
        return "call", tests, fn_name
    tests = [{"input": stdio_text(i), "output": stdio_text(o)} for i, o in zip(inputs, outputs)]
    return "stdio", tests, None


def list_test_kind(raw: list[Any], kind_of: Callable[[dict[str, Any]], str]) -> str:
    """The one kind (`kind_of`) of a list of test objects, 'stdin' for none; mixed kinds are
    a RecordError."""
    kinds = {kind_of(t) for t in raw if isinstance(t, dict)}
    if len(kinds) > 1:
        raise RecordError("tests", f"mixes test types {sorted(kinds)}")
    return kinds.pop() if kinds else "stdin"


def list_test(test: Any, i: int) -> dict[str, Any]:
    """Test `i` of a list of tests, which must be an object with `input` and `output`."""
    if not isinstance(test, dict) or "input" not in test or "output" not in test:
        raise RecordError("tests", f"test {i} must be an object with input and output")
    return test


def functional_test(test: dict[str, Any], i: int) -> dict[str, str]:
    """A LiveCodeBench functional test (input: one JSON value per line, or already the list of
    arguments; output: the JSON return value) as a canonical call test."""
    out = test["output"] if isinstance(test["output"], str) else dumps(test["output"])
    try:
        loads(out, "tests")
    except RecordError as e:
        raise RecordError("tests", f"test {i}: functional output {e.message}") from None
    args = test["input"] if isinstance(test["input"], list) else lines_to_args(str(test["input"]))
    return {"input": dumps(args), "output": out.strip()}
