"""Converters for the local files in ../shared/data (and the canonical format).

- leetcodedataset: `query` is the statement; `assert` tests: `test` defines check(candidate),
  called with `Solution().method`; solutions = `prompt` (its imports and helpers) + `completion`,
  then `prompt` + the code of `response` (a second, independently written solution) when it differs.
  A second reference matters to amplification: a generated input is kept only where every
  reference that passes the original tests agrees, which drops inputs outside the problem's
  unstated contract (one reference alone answers them, right or wrong).
  Its `input_output` pairs are keyword strings ("nums = [1], k = 2"), not positional JSON, so
  they are not used.
- mbpp: bare asserts (`test_setup_code` + `test_list`); the entry point is the function the
  asserts call; the first assert is appended to the statement so the name is known.
- humaneval: statement and starter = `prompt`; solution = prompt + canonical_solution;
  `test` defines check(candidate).
- humaneval-x: same, but its `test` defines check(<entry point name>) and ends by calling it on
  the global name; the trailing call is dropped so the test is the usual check(candidate) form
  (the parameter name does not matter to a positional call).
- codecontests-subset: stdio tests, one `solution`; `difficulty` (CodeContests enum: 8 = B ...)
  becomes its letter.
"""

from __future__ import annotations

import re
from typing import Any

from curation.schema import RecordError
from curation.sources.code_contests import cc_difficulty_label
from curation.sources.extract import extract_code
from curation.sources.fields import str_list, text_or_none

__all__ = [
    "convert_leetcodedataset",
    "convert_mbpp",
    "convert_humaneval",
    "convert_humaneval_x",
    "convert_codecontests_subset",
    "convert_canonical",
    "mbpp_entry_point",
]


def _base(rid: str, statement: str | None, test_type: str) -> dict[str, Any]:
    if statement is None:
        raise RecordError("statement", "is empty", {"id": rid})
    return {
        "id": rid, "statement": statement, "starter_code": None, "language": "python",
        "test_type": test_type, "entry_point": None, "tests": [], "test_code": None,
        "solutions": [], "incorrect_solutions": [], "checker": None, "time_limit_s": None,
        "memory_limit_mb": None, "difficulty_label": None, "tags": [],
    }  # fmt: skip


def convert_leetcodedataset(row: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """A LeetCodeDataset row to an `assert` record (pure)."""
    rid = text_or_none(row.get("task_id")) or str(index)
    rec = _base(rid, text_or_none(row.get("query")), "assert")
    raw_meta = row.get("meta")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    prompt, completion = (row.get("prompt") or "").rstrip("\n"), row.get("completion") or ""
    solutions = [prompt + "\n\n" + completion] if completion.strip() else []
    second = extract_code(text_or_none(row.get("response")))
    if second and second.strip() != completion.strip():
        solutions.append(prompt + "\n\n" + second)
    starter = text_or_none(meta.get("lang_code")) or extract_code(rec["statement"])
    rec.update(
        starter_code=starter,
        entry_point=text_or_none(row.get("entry_point")),
        test_code=text_or_none(row.get("test")),
        solutions=solutions,
        difficulty_label=text_or_none(meta.get("difficulty")),
        tags=str_list(meta.get("tags")),
    )
    return rec


_DEF = re.compile(r"^\s*def\s+([A-Za-z_]\w*)\s*\(", re.MULTILINE)
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_NOT_ENTRY = {
    "set",
    "sorted",
    "list",
    "tuple",
    "abs",
    "round",
    "len",
    "str",
    "int",
    "float",
    "math",
    "isclose",
    "all",
    "any",
    "max",
    "min",
    "dict",
    "frozenset",
    "not",
}


def mbpp_entry_point(code: str, asserts: list[str]) -> str | None:
    """The function the asserts call: the first name both defined in `code` and called in a test."""
    defined = _DEF.findall(code)
    called = [n for a in asserts for n in _CALL.findall(a)]
    for name in called:
        if name in defined:
            return name
    return next((n for n in called if n not in _NOT_ENTRY), None)


def convert_mbpp(row: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """An MBPP row to an `assert` record with bare asserts (pure)."""
    rid = str(row.get("task_id", index))
    text = text_or_none(row.get("text"))
    asserts = [a for a in (row.get("test_list") or []) if isinstance(a, str) and a.strip()]
    code = row.get("code") or ""
    statement = (
        f"{text}\n\nYour code should pass this test:\n{asserts[0]}" if text and asserts else text
    )
    rec = _base(rid, statement, "assert")
    entry = mbpp_entry_point(code, asserts)
    if entry is None:
        raise RecordError(
            "entry_point", "no function call found in test_list", {"id": rid, "statement": text}
        )
    setup = (row.get("test_setup_code") or "").strip()
    rec.update(
        entry_point=entry,
        test_code="\n".join([setup, *asserts] if setup else asserts) + "\n",
        solutions=[code] if code.strip() else [],
    )
    return rec


def convert_humaneval(row: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """A HumanEval row to an `assert` record (pure)."""
    rid = text_or_none(row.get("task_id")) or str(index)
    prompt = row.get("prompt") or ""
    rec = _base(rid, text_or_none(prompt), "assert")
    rec.update(
        starter_code=prompt,
        entry_point=text_or_none(row.get("entry_point")),
        test_code=text_or_none(row.get("test")),
        solutions=[prompt + (row.get("canonical_solution") or "")],
    )
    return rec


def convert_humaneval_x(row: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """A HumanEval-X (Python) row to the same form as HumanEval (pure)."""
    rec = convert_humaneval(row, index)
    test = rec["test_code"] or ""
    m = re.search(r"^def\s+check\s*\(\s*([A-Za-z_]\w*)\s*\)", test, re.MULTILINE)
    name = m.group(1) if m else None
    if rec["entry_point"] is None and name:
        rec["entry_point"] = name
    if name:
        call = re.compile(rf"^check\s*\(\s*{re.escape(name)}\s*\)\s*$", re.MULTILINE)
        rec["test_code"] = call.sub("", test).rstrip() + "\n"
    return rec


def convert_codecontests_subset(row: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """A row of codecontests-subset300 to a `stdio` record (pure)."""
    rid = text_or_none(row.get("id")) or str(index)
    rec = _base(rid, text_or_none(row.get("statement")), "stdio")
    tests = []
    for i, t in enumerate(row.get("tests") or []):
        if not isinstance(t, dict) or "input" not in t or "output" not in t:
            raise RecordError("tests", f"test {i} must have input and output", {"id": rid})
        tests.append({"input": str(t["input"]), "output": str(t["output"])})
    sol = row.get("solution")
    rec.update(
        tests=tests,
        solutions=[sol] if isinstance(sol, str) and sol.strip() else [],
        difficulty_label=cc_difficulty_label(row.get("difficulty")),
        tags=str_list(row.get("tags")),
    )
    return rec


def convert_canonical(row: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """A row already in the canonical format: passed through (the pipeline normalises it)."""
    return dict(row)
