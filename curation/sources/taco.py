"""TACO, TACO-verified and APPS: one format (`question`, JSON `solutions`, JSON `input_output`).

`input_output` with `fn_name` means call-based tests: each input is a list of arguments. Whether
an output is the return value or a one-element list holding it depends on the site the problem
came from (the `source` column, else the `url`): Codewars rows wrap it, LeetCode and HackerRank
rows do not (ganler/code-r1's TACO preprocessing; TACO's own tester accepts either, so the data
never had to agree). Call tests from any other site are rejected as `unsupported_format:<site>`:
their wrapping is unknown, and a guessed expected value would reward wrong programs.

An expected stdio output loses its leading blank lines: TACO's and APPS' testers compare outputs
after `strip()`, and some outputs start with one (the card's 1492/B row), which a correct program
does not print and our line-by-line comparison would count.

GeeksforGeeks rows are rejected as `unsupported_format:geeksforgeeks`: a `class Solution`
starter, no `fn_name`, and the statement's display examples ("n = 5 ...") as stdin, so no program
can pass them. Rows without tests or solutions are converted as they are (verify rejects them).
TACO has no id column, so its id is the row's position in the split; APPS has `problem_id`.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse

from curation.schema import RecordError
from curation.sources.callnorm import entry_point_for, taco_tests
from curation.sources.columns import Columns
from curation.sources.fields import json_field, number_in, solution_list, str_list, text_or_none

__all__ = ["convert_taco", "site_of", "call_outputs_wrapped", "TACO_COLUMNS", "APPS_COLUMNS"]

_TEXT = ("string",)
_TEXT_OR_LIST = ("string", "list<string>")
#: What the converter reads of TACO (the card: 17 string columns) and TACO-verified (the same,
#: with `solutions` a list of strings).
TACO_COLUMNS = Columns(
    required={"question": _TEXT, "input_output": _TEXT, "solutions": _TEXT_OR_LIST},
    optional={
        "starter_code": _TEXT, "difficulty": _TEXT, "source": _TEXT, "url": _TEXT,
        "time_limit": _TEXT, "memory_limit": _TEXT, "tags": _TEXT_OR_LIST, "raw_tags": _TEXT_OR_LIST,
    },
)  # fmt: skip
#: APPS: `problem_id` is an integer, no `source` column.
APPS_COLUMNS = Columns(
    required={"question": _TEXT, "input_output": _TEXT, "solutions": _TEXT_OR_LIST},
    optional={"problem_id": ("int", "string"), "starter_code": _TEXT, "difficulty": _TEXT, "url": _TEXT},
)  # fmt: skip

_KNOWN_SITES = (
    "codewars", "leetcode", "hackerrank", "geeksforgeeks", "codeforces", "codechef", "atcoder",
    "hackerearth", "aizu", "kattis",
)  # fmt: skip
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t\r]*\n)+")
_WRAPPED = {"codewars"}
_UNWRAPPED = {"leetcode", "hackerrank"}


def site_of(source: Any, url: Any) -> str | None:
    """The judge a row comes from: the `source` column, else a known name in the URL's host."""
    name = str(source or "").strip().lower()
    if name:
        return name
    host = (urlparse(str(url or "")).hostname or "").lower()
    return next((s for s in _KNOWN_SITES if s in host), host or None)


def call_outputs_wrapped(site: str | None, starter_code: str | None) -> bool | None:
    """True when a site's call outputs are one-element lists, False when not, None if unknown.

    Without a site (DeepCoder's `taco` rows have none), a `class Solution` starter means a
    LeetCode problem (not wrapped) and any other starter Codewars (wrapped), TACO's two sources
    of call-based problems.
    """
    if site in _WRAPPED:
        return True
    if site in _UNWRAPPED:
        return False
    if site is None:
        return not (starter_code and "class Solution" in starter_code)
    return None


def convert_taco(row: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """A TACO/APPS row to a canonical record (pure)."""
    rid = row.get("problem_id", row.get("id"))
    rid = str(rid) if rid is not None else str(index)
    partial = {"id": rid, "statement": row.get("question")}
    statement = text_or_none(row.get("question"))
    if statement is None:
        raise RecordError("statement", "question is empty", partial)
    starter = text_or_none(row.get("starter_code"))
    io = json_field(row.get("input_output"), "tests", default={})
    if not isinstance(io, dict):
        raise RecordError("tests", "input_output must be a JSON object", partial)
    site = site_of(row.get("source"), row.get("url"))
    has_fn = bool(io.get("fn_name"))
    if site == "geeksforgeeks" and not has_fn:
        raise RecordError(
            "tests",
            "GeeksforGeeks row: a class Solution starter, no fn_name, and the statement's display "
            "examples as stdin; no program can pass these tests",
            partial,
            reason="unsupported_format:geeksforgeeks",
        )
    wrapped = call_outputs_wrapped(site, starter) if has_fn else True
    if wrapped is None:
        raise RecordError(
            "tests",
            f"call tests from {site!r}: whether its outputs are wrapped in a list is known only "
            "for codewars (wrapped), leetcode and hackerrank (not wrapped)",
            partial,
            reason=f"unsupported_format:{site}",
        )
    try:
        test_type, tests, fn_name = taco_tests(io, wrapped)
    except RecordError as e:
        raise RecordError(e.field, e.message, partial) from None
    if test_type == "stdio":
        tests = [{**t, "output": _LEADING_BLANK_LINES.sub("", t["output"])} for t in tests]
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
