"""Which language each of a record's programs is in: its references and its known-wrong solutions.

A record's `solutions` and `incorrect_solutions` stay lists of source text; beside them,
`solution_languages` and `incorrect_solution_languages` name each one's language ("python",
"cpp", "java", as the sandbox and the loaders spell them), in the same order. A record without
them (an older build, a source that ships Python only) is all Python.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LANGUAGE_FIELDS", "languages_of", "programs_in", "language_counts"]

#: each program list, and the field naming its programs' languages
LANGUAGE_FIELDS = {
    "solutions": "solution_languages",
    "incorrect_solutions": "incorrect_solution_languages",
}


def languages_of(record: dict[str, Any], field: str = "solutions") -> list[str]:
    """The language of each program in `record[field]`, in order (Python where none is given)."""
    programs = record.get(field) or []
    given = record.get(LANGUAGE_FIELDS[field]) or []
    return [str(given[i] or "python") if i < len(given) else "python" for i in range(len(programs))]


def programs_in(
    record: dict[str, Any], language: str | None = None, field: str = "solutions"
) -> list[tuple[str, str]]:
    """(source, language) of each program in `record[field]`; only those in `language` if given."""
    pairs = zip(record.get(field) or [], languages_of(record, field))
    return [(code, lang) for code, lang in pairs if language is None or lang == language]


def language_counts(record: dict[str, Any], field: str = "solutions") -> dict[str, int]:
    """How many programs of `record[field]` are in each language."""
    counts: dict[str, int] = {}
    for lang in languages_of(record, field):
        counts[lang] = counts.get(lang, 0) + 1
    return counts
