"""PrimeIntellect verifiable-coding-problems: `verification_info` tests, fenced gold solutions.

`verification_info` is JSON: {"language", "test_cases": [{"input", "output", "type", "fn_name"?}]}.
`type` "stdin_stdout" gives stdio tests; "function_call" gives call tests: each input is the list
of arguments (JSON lines when a string), each output a one-element list holding the return value
(the real `sort_twisted37` rows: a function returning [1, 2, 7] is expected as [[1, 2, 7]]). Rows
in other languages are skipped (not rejected) unless `language` says otherwise ("" keeps all; the
record's `language` is the row's). The solution is the code of the fenced block in
`gold_standard_solution`; a row whose gold solution holds no code is rejected. The `prompt`'s
answer-format instructions are stripped (`instructions.strip_instructions`): `statement` is the
problem, `source_prompt` the prompt as the dataset has it, and a starter in the instructions
becomes `starter_code`.
"""

from __future__ import annotations

from typing import Any

from curation.schema import RecordError
from curation.sources.callnorm import call_args, call_output, entry_point_for, stdio_text
from curation.sources.columns import Columns
from curation.sources.extract import extract_code
from curation.sources.fields import json_field, number_in, text_or_none
from curation.sources.instructions import strip_instructions

__all__ = ["convert_primeintellect", "PRIMEINTELLECT_COLUMNS"]

#: What the converter reads (all strings on the hub; JSON fields may come decoded elsewhere).
PRIMEINTELLECT_COLUMNS = Columns(
    required={"prompt": ("string",), "verification_info": ("string", "struct")},
    optional={
        "gold_standard_solution": ("string",), "problem_id": ("string",),
        "in_source_id": ("string",), "metadata": ("string", "struct"),
    },
)  # fmt: skip


def _tests(cases: list[Any]) -> tuple[str, list[dict[str, str]], str | None]:
    kinds = {c.get("type", "stdin_stdout") for c in cases if isinstance(c, dict)}
    if len(kinds) > 1:
        raise RecordError("tests", f"mixes test types {sorted(kinds)}")
    kind = kinds.pop() if kinds else "stdin_stdout"
    if kind == "function_call":
        fns = {c.get("fn_name") for c in cases}
        fn = next(iter(fns)) if len(fns) == 1 else None
        if not fn:
            raise RecordError("entry_point", "function_call tests need one fn_name")
        tests = [
            {"input": call_args(c["input"]), "output": call_output(c["output"], wrapped=True)}
            for c in cases
        ]
        return "call", tests, fn
    if kind != "stdin_stdout":
        raise RecordError("tests", f"unknown test type {kind!r}")
    return (
        "stdio",
        [{"input": stdio_text(c["input"]), "output": stdio_text(c["output"])} for c in cases],
        None,
    )


def convert_primeintellect(
    row: dict[str, Any], index: int = 0, language: str = "python"
) -> dict[str, Any] | None:
    """A PrimeIntellect row to a canonical record; None for rows in other languages (pure)."""
    rid = text_or_none(row.get("problem_id")) or text_or_none(row.get("in_source_id")) or str(index)
    partial = {"id": rid, "statement": row.get("prompt")}
    try:
        info = json_field(row.get("verification_info"), "tests", default={}) or {}
        lang = str(info.get("language") or "python").lower()
        lang = "python" if lang.startswith("python") else lang
        if language and not lang.startswith(language.lower()):
            return None
        statement = text_or_none(row.get("prompt"))
        if statement is None:
            raise RecordError("statement", "prompt is empty")
        cases = info.get("test_cases") or []
        if any(not isinstance(c, dict) or "input" not in c or "output" not in c for c in cases):
            raise RecordError("tests", "every test case needs input and output")
        test_type, tests, fn = _tests(cases)
        gold = row.get("gold_standard_solution")
        code = extract_code(gold, lang)
        if gold and code is None:
            raise RecordError("solutions", "no code found in gold_standard_solution")
        meta = json_field(row.get("metadata"), "metadata", default={}) or {}
    except (RecordError, KeyError, TypeError, AttributeError) as e:
        if isinstance(e, RecordError):
            raise RecordError(e.field, e.message, partial) from None
        raise RecordError("tests", f"malformed verification_info ({e!r})", partial) from None
    meta = meta if isinstance(meta, dict) else {}
    problem, starter = strip_instructions(statement)
    return {
        "id": rid,
        "statement": problem,
        "starter_code": starter,
        "language": lang,
        "test_type": test_type,
        "entry_point": entry_point_for(
            fn, starter or (problem if "class Solution" in problem else None)
        ),
        "tests": tests,
        "test_code": None,
        "solutions": [code] if code else [],
        "incorrect_solutions": [],
        "checker": None,
        "time_limit_s": number_in(meta.get("time_limit")),
        "memory_limit_mb": number_in(meta.get("memory_limit")),
        "difficulty_label": text_or_none(meta.get("difficulty")),
        "tags": [],
        "source_prompt": statement if problem != statement else None,
    }
