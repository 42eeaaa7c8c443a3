"""TACO, TACO-verified and APPS: one format (`question`, JSON `solutions`, JSON `input_output`).

`input_output` with `fn_name` means call-based tests: each input is a list of arguments and each
output a one-element list holding the return value; both become canonical JSON. Rows without
tests or solutions are converted as they are (the verify stage rejects them). TACO has no id
column, so its id is the row's position in the split; APPS has `problem_id`.
"""

from __future__ import annotations

from typing import Any

from curation.schema import RecordError
from curation.sources.callnorm import entry_point_for, taco_tests
from curation.sources.fields import json_field, number_in, solution_list, str_list, text_or_none

__all__ = ["convert_taco"]


def convert_taco(row: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """A TACO/APPS row to a canonical record (pure)."""
    rid = row.get("problem_id", row.get("id"))
    rid = str(rid) if rid is not None else str(index)
    statement = text_or_none(row.get("question"))
    if statement is None:
        raise RecordError("statement", "question is empty", {"id": rid})
    starter = text_or_none(row.get("starter_code"))
    io = json_field(row.get("input_output"), "tests", default={})
    if not isinstance(io, dict):
        raise RecordError("tests", "input_output must be a JSON object", {"id": rid})
    test_type, tests, fn_name = taco_tests(io)
    tags = str_list(row.get("tags")) or str_list(row.get("raw_tags"))
    return {
        "id": rid,
        "statement": statement,
        "starter_code": starter,
        "language": "python",
        "test_type": test_type,
        "entry_point": entry_point_for(fn_name, starter),
        "tests": tests,
        "test_code": None,
        "solutions": solution_list(row.get("solutions")),
        "incorrect_solutions": [],
        "checker": None,
        "time_limit_s": number_in(row.get("time_limit")),
        "memory_limit_mb": number_in(row.get("memory_limit")),
        "difficulty_label": text_or_none(row.get("difficulty")),
        "tags": tags,
    }
