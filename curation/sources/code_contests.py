"""DeepMind CodeContests: public + private + generated stdio tests, solutions in every language.

Language codes: 1 = Python 2, 2 = C++, 3 = Python 3, 4 = Java; all four are kept, for both
`solutions` and `incorrect_solutions`, each named in `solution_languages` /
`incorrect_solution_languages` ("python2", "cpp", "python", "java"; verify judges Python 3 and
C++). `time_limit` {seconds, nanos} becomes seconds,
`memory_limit_bytes` (decimal: 256000000 is 256 MB) megabytes, and the `difficulty` enum its
name from google-deepmind/code_contests `contest_problem.proto` (7 = "A" ... 17 = "K", then
19 = "L" ... 29 = "V": 18 is not used). Problems that read from a named file (`input_file`) are
rejected as `unsupported_format:file_io`: we run stdin/stdout only.
"""

from __future__ import annotations

from typing import Any

from curation.schema import RecordError, blank_record
from curation.sources.callnorm import stdio_text
from curation.sources.columns import Columns
from curation.sources.fields import str_list, text_or_none

__all__ = [
    "convert_code_contests",
    "cc_difficulty_label",
    "DIFFICULTY",
    "PYTHON3",
    "LANGUAGES",
    "CODE_CONTESTS_COLUMNS",
]

PYTHON3 = 3
#: CodeContests' language codes, by the names records use
LANGUAGES: dict[int, str] = {1: "python2", 2: "cpp", 3: "python", 4: "java"}
#: `ContestProblem.Difficulty` of contest_problem.proto, value -> name (0, UNKNOWN, is no label).
DIFFICULTY: dict[int, str] = {
    1: "EASY", 2: "MEDIUM", 3: "HARD", 4: "HARDER", 5: "HARDEST", 6: "EXTERNAL",
    7: "A", 8: "B", 9: "C", 10: "D", 11: "E", 12: "F", 13: "G", 14: "H", 15: "I", 16: "J",
    17: "K", 19: "L", 20: "M", 21: "N", 22: "O", 23: "P", 24: "Q", 25: "R", 26: "S", 27: "T",
    28: "U", 29: "V",
}  # fmt: skip
#: What the converter reads (the hub's Parquet; the three test groups are structs of lists).
CODE_CONTESTS_COLUMNS = Columns(
    required={"description": ("string",), "public_tests": ("struct",), "private_tests": ("struct",)},
    optional={
        "name": ("string",), "generated_tests": ("struct",), "solutions": ("struct",),
        "incorrect_solutions": ("struct",), "difficulty": ("int", "string"), "time_limit": ("struct",),
        "memory_limit_bytes": ("int",), "input_file": ("string",), "output_file": ("string",),
        "cf_tags": ("list<string>",),
    },
)  # fmt: skip


def cc_difficulty_label(value: Any) -> str | None:
    """CodeContests difficulty enum value -> its name in the proto (None for 0 or unknown values)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value or None
    return DIFFICULTY.get(int(value))


def _tests(group: Any) -> list[dict[str, str]]:
    if not group:
        return []
    ins, outs = group.get("input") or [], group.get("output") or []
    if len(ins) != len(outs):
        raise RecordError("tests", f"{len(ins)} inputs but {len(outs)} outputs")
    return [{"input": stdio_text(i), "output": stdio_text(o)} for i, o in zip(ins, outs)]


def _programs(group: Any, keep: set[str]) -> tuple[list[str], list[str]]:
    """(solutions, their languages) of a solutions group, in the languages kept."""
    if not group:
        return [], []
    langs, sols = group.get("language") or [], group.get("solution") or []
    pairs = [
        (s, LANGUAGES[lang])
        for lang, s in zip(langs, sols)
        if lang in LANGUAGES and LANGUAGES[lang] in keep and isinstance(s, str) and s.strip()
    ]
    return [s for s, _ in pairs], [lang for _, lang in pairs]


def convert_code_contests(
    row: dict[str, Any],
    index: int = 0,
    include_generated: bool = True,
    languages: str = "python,cpp,python2,java",
) -> dict[str, Any]:
    """A CodeContests row to a canonical record (pure). `languages`: the solutions' languages
    kept, comma-separated (`python` is Python 3; e.g. "python,cpp" for those verify judges)."""
    keep = {lang.strip() for lang in languages.split(",") if lang.strip()}
    unknown = keep - set(LANGUAGES.values())
    if unknown:
        raise ValueError(
            f"unknown languages {sorted(unknown)}; known: {', '.join(LANGUAGES.values())}"
        )
    rid = text_or_none(row.get("name")) or str(index)
    partial = {"id": rid}
    statement = text_or_none(row.get("description"))
    if statement is None:
        raise RecordError("statement", "description is empty", partial)
    for f in ("input_file", "output_file"):
        if text_or_none(row.get(f)):
            raise RecordError(
                f,
                f"reads/writes the file {row[f]!r}; only stdin/stdout is supported",
                partial,
                reason="unsupported_format:file_io",
            )
    groups = ["public_tests", "private_tests"] + (["generated_tests"] if include_generated else [])
    try:
        tests = [t for g in groups for t in _tests(row.get(g))]
    except RecordError as e:
        raise RecordError(e.field, e.message, partial) from None
    tl = row.get("time_limit") or {}
    seconds = (tl.get("seconds") or 0) + (tl.get("nanos") or 0) / 1e9 if isinstance(tl, dict) else 0
    mem = row.get("memory_limit_bytes") or 0
    solutions, solution_languages = _programs(row.get("solutions"), keep)
    incorrect, incorrect_languages = _programs(row.get("incorrect_solutions"), keep)
    return blank_record(
        {
            "id": rid,
            "statement": statement,
            "test_type": "stdio",
            "tests": tests,
            "solutions": solutions,
            "solution_languages": solution_languages,
            "incorrect_solutions": incorrect,
            "incorrect_solution_languages": incorrect_languages,
            "time_limit_s": seconds or None,
            "memory_limit_mb": mem / 1e6 if mem else None,
            "difficulty_label": cc_difficulty_label(row.get("difficulty")),
            "tags": str_list(row.get("cf_tags")),
        }
    )
