"""Which references label amplify's generated inputs, in which order, and how their agreement is
counted (`filters.stages.amplify.stage.AmplifyStage`).

Every reference the sandbox judges takes part: Python ones on every problem, C++ ones on stdio
problems (call and assert tests call a Python function). They are taken in turn from each
language (`filters.tools.languages.judged_programs`), so that a few Python references are tried beside
hundreds of C++ ones. Of those that pass the original tests, the first in the record's order of
the cheaper language (C++ before Python: `LABELLING_ORDER`) labels every candidate input first;
not the fastest by measured CPU, which changes from run to run (and with the machine's load) when
two references are about as fast, and with it the labels. The
others run the inputs it kept and must print what the judge accepts against its outputs, so
references in several languages must agree for an input to be kept. An input on which they do
not is dropped and counted in the problem's `amplify_note` (`disagreement`); the problem keeps
its original tests either way. `amplify_languages` records the languages that labelled, the
labeller's first.

AST mutants, which guide which inputs to keep, come from a Python reference only: a problem
with only C++ references is amplified without them (its new inputs fill the suite up to the
target).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from filters.stages.verify.mutants import MUTATED_LANGUAGES
from filters.tools.languages import judged_programs

__all__ = [
    "LABELLING_ORDER",
    "labelling_references",
    "labelling_order",
    "mutated_reference",
    "labelling_languages",
    "disagreement",
]


def labelling_references(
    row: Mapping[str, Any], test_type: str | None, limit: int | None = None
) -> list[tuple[str, str]]:
    """(source, language) of the references that may label a problem's new inputs, at most
    `limit`: Python and, on a stdio problem, C++, taken in turn from each language."""
    stdio = (test_type or "stdio") == "stdio"
    refs = [
        (code, lang)
        for code, lang in judged_programs(row)
        if lang == "python" or (stdio and lang == "cpp")
    ]
    # judged_programs interleaves the languages: that order, cut at `limit`
    return refs if limit is None else refs[:limit]


#: a passing reference: its source, its language, its run on the original tests
_Passing = tuple[str, str, Any]
#: the order in which languages label new inputs: the cheaper to run first
LABELLING_ORDER = ("cpp", "python")


def labelling_order(passing: Sequence[_Passing]) -> list[_Passing]:
    """Passing references, (source, language, RunResult), the labeller first: by
    `LABELLING_ORDER`, in the record's order within a language; never by measured time, so the
    same in every run."""
    rank = {lang: i for i, lang in enumerate(LABELLING_ORDER)}
    return sorted(passing, key=lambda p: rank.get(p[1], len(rank)))


def mutated_reference(
    passing: Sequence[tuple[str, str, Any]], languages: Sequence[str] = MUTATED_LANGUAGES
) -> tuple[str, str] | None:
    """The reference whose mutants guide the choice of inputs, with its language: the first
    passing Python one (AST mutants), else the first passing C++ one (token mutants,
    `filters.stages.verify.cpp_mutants`), among `languages`; None when no passing reference is in one of them."""
    for wanted in [lang for lang in MUTATED_LANGUAGES if lang in languages]:
        for code, lang, _ in passing:
            if lang == wanted:
                return code, lang
    return None


def labelling_languages(refs: Sequence[tuple[str, str]]) -> list[str]:
    """The languages of the labelling references, the labeller's first, each once."""
    out: list[str] = []
    for _, lang in refs:
        if lang not in out:
            out.append(lang)
    return out


def disagreement(labeller: str, checker: str) -> str:
    """How an input dropped because a checking reference did not accept the labeller's output is
    counted in the note: "references disagree", naming the languages when they differ."""
    if labeller == checker:
        return "references disagree"
    return f"references disagree ({checker} against {labeller})"
