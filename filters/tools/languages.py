"""Which language each of a record's programs is in: its references and its known-wrong solutions.

A record's `solutions` and `incorrect_solutions` stay lists of source text; beside them,
`solution_languages` and `incorrect_solution_languages` name each one's language ("python",
"cpp", "java", as the sandbox and the loaders spell them), in the same order. A record without
them (an older build, a source that ships Python only) is all Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "LANGUAGE_FIELDS",
    "JUDGED_LANGUAGES",
    "languages_of",
    "programs_in",
    "judged_programs",
    "language_counts",
]

#: the languages the sandbox runs (`filters.sandbox.cpp.LANGUAGES`); a record's programs in others
#: (Python 2, Java) are kept in it but not judged
JUDGED_LANGUAGES = ("python", "cpp")
#: each program list, and the field naming its programs' languages
LANGUAGE_FIELDS = {
    "solutions": "solution_languages",
    "incorrect_solutions": "incorrect_solution_languages",
}


def languages_of(record: Mapping[str, Any], field: str = "solutions") -> list[str]:
    """The language of each program in `record[field]`, in order (Python where none is given)."""
    programs = record.get(field) or []
    given = record.get(LANGUAGE_FIELDS[field]) or []
    return [str(given[i] or "python") if i < len(given) else "python" for i in range(len(programs))]


def programs_in(
    record: Mapping[str, Any], language: str | None = None, field: str = "solutions"
) -> list[tuple[str, str]]:
    """(source, language) of each program in `record[field]`; only those in `language` if given."""
    pairs = zip(record.get(field) or [], languages_of(record, field))
    return [(code, lang) for code, lang in pairs if language is None or lang == language]


def judged_programs(
    record: Mapping[str, Any], limit: int | None = None, field: str = "solutions"
) -> list[tuple[str, str]]:
    """(source, language) of the programs in `record[field]` the sandbox can judge, at most
    `limit`, taken in turn from each language (so that a few Python references are judged beside
    hundreds of C++ ones), each language's in the record's order."""
    by_language: dict[str, list[tuple[str, str]]] = {}
    for code, lang in programs_in(record, field=field):
        if lang in JUDGED_LANGUAGES and isinstance(code, str) and code.strip():
            by_language.setdefault(lang, []).append((code, lang))
    out: list[tuple[str, str]] = []
    queues = list(by_language.values())
    depth = 0
    while queues and (limit is None or len(out) < limit):
        queues = [q for q in queues if depth < len(q)]
        for q in queues:
            if limit is not None and len(out) >= limit:
                break
            out.append(q[depth])
        depth += 1
    return out


def language_counts(record: Mapping[str, Any], field: str = "solutions") -> dict[str, int]:
    """How many programs of `record[field]` are in each language."""
    counts: dict[str, int] = {}
    for lang in languages_of(record, field):
        counts[lang] = counts.get(lang, 0) + 1
    return counts
